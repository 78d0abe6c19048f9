import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import {
  DAY_MS,
  HOUR_MS,
  expectActiveKey,
  expectError,
  expectGeneratedKey,
  expectValidationError,
  serviceSeeder,
} from '../helpers/records.ts';
import { seedKeys, type SeedKey } from './keys-data.fixtures.ts';

// Contract §7.2: GET /keys/api/keys, both kinds of keys in one filtered, sorted, paged list.
const t = useTestApp();
const newService = serviceSeeder(t);

const list = (s: SeededService, query: Record<string, string> = {}, key = s.serviceKey) =>
  call(t().app, 'GET', `/api/v1/keys/api/keys?${new URLSearchParams(query)}`, { key });
// Keys are unique across the server: each service's fixture keys carry a prefix of their own, dropped here.
const PREFIX_LENGTH = 4;
let services = 0;
const keysOf = (res: { body: { data: { items: Array<{ key: string }> } } }) => res.body.data.items.map((i) => i.key.slice(PREFIX_LENGTH));

/** A service with a known mix: times are offsets from the test clock's now. */
async function mixedService() {
  const s = await newService();
  const now = t().clock.now;
  const keys: SeedKey[] = [
    {
      key: 'ACTIVEaaa0000001',
      type: 'active',
      createdAt: now - 5 * DAY_MS,
      hwids: ['PC-One', 'pc-two'],
      executions: 7,
      lastUsedAt: now - DAY_MS,
      isPremium: true,
      note: 'first buyer',
    },
    {
      key: 'ACTIVEbbb0000002',
      type: 'active',
      createdAt: now - 4 * DAY_MS,
      expiresAt: now - DAY_MS,
      executions: 2,
      lastUsedAt: now - 3 * DAY_MS,
      status: 'banned',
    },
    {
      key: 'ACTIVEccc0000003',
      type: 'active',
      createdAt: now - 3 * DAY_MS,
      expiresAt: now + DAY_MS,
      executions: 7,
      chatId: '123456789012345678',
    },
    { key: 'GENERATEDd000004', type: 'generated', createdAt: now - 2 * DAY_MS, expiresAt: now + 2 * DAY_MS, note: '100%_off' },
    { key: 'GENERATEDe000005', type: 'generated', createdAt: now - DAY_MS, status: 'paused', isPremium: true },
  ];
  const prefix = `P${String(++services).padStart(PREFIX_LENGTH - 1, '0')}`;
  await seedKeys(
    t().ctx,
    s.id,
    keys.map((k) => ({ ...k, key: prefix + k.key })),
  );
  return s;
}

describe('GET /keys/api/keys', () => {
  it('lists both kinds newest first with their type and the exact records, paged as §1', async () => {
    const s = await mixedService();
    const res = await list(s);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ page: 1, limit: 20, total: 5, totalPages: 1 });
    expect(keysOf(res)).toEqual(['GENERATEDe000005', 'GENERATEDd000004', 'ACTIVEccc0000003', 'ACTIVEbbb0000002', 'ACTIVEaaa0000001']);
    for (const item of res.body.data.items) {
      const { type, ...record } = item;
      if (type === 'active') expectActiveKey({ ...record, key: 'x'.repeat(32) });
      else expectGeneratedKey({ ...record, key: 'x'.repeat(32) });
    }
    expect(res.body.data.items[4]).toMatchObject({
      type: 'active',
      hwid: 'PC-One',
      hwids: ['PC-One', 'pc-two'],
      executions: 7,
      isPremium: true,
    });
    expect(res.body.data.items[0]).toMatchObject({ type: 'generated', status: 'paused', expirationType: 'lifetime' });
  });

  it('pages through every key once, with total and totalPages', async () => {
    const s = await mixedService();
    const pages = await Promise.all([1, 2, 3].map((page) => list(s, { limit: '2', page: String(page), order: 'asc' })));
    expect(pages.map((p) => p.body.data.totalPages)).toEqual([3, 3, 3]);
    expect(pages.flatMap(keysOf)).toEqual([
      'ACTIVEaaa0000001',
      'ACTIVEbbb0000002',
      'ACTIVEccc0000003',
      'GENERATEDd000004',
      'GENERATEDe000005',
    ]);
    const beyond = await list(s, { page: '4', limit: '2' });
    expect(beyond.body.data).toMatchObject({ items: [], total: 5, page: 4 });
  });

  it.each([
    [{ type: 'active' }, ['ACTIVEccc0000003', 'ACTIVEbbb0000002', 'ACTIVEaaa0000001']],
    [{ type: 'generated' }, ['GENERATEDe000005', 'GENERATEDd000004']],
    [{ status: 'banned' }, ['ACTIVEbbb0000002']],
    [{ status: 'paused' }, ['GENERATEDe000005']],
    [{ premium: 'true' }, ['GENERATEDe000005', 'ACTIVEaaa0000001']],
    [{ premium: 'false' }, ['GENERATEDd000004', 'ACTIVEccc0000003', 'ACTIVEbbb0000002']],
    [{ bound: 'true' }, ['ACTIVEaaa0000001']],
    [{ bound: 'false' }, ['GENERATEDe000005', 'GENERATEDd000004', 'ACTIVEccc0000003', 'ACTIVEbbb0000002']],
    [{ expired: 'true' }, ['ACTIVEbbb0000002']],
    [{ expired: 'false' }, ['GENERATEDe000005', 'GENERATEDd000004', 'ACTIVEccc0000003', 'ACTIVEaaa0000001']],
    [{ search: 'pc-TWO' }, ['ACTIVEaaa0000001']],
    [{ search: 'FIRST BUY' }, ['ACTIVEaaa0000001']],
    [{ search: 'bbb' }, ['ACTIVEbbb0000002']],
    [{ search: '45678901234' }, ['ACTIVEccc0000003']],
    [{ search: '%_' }, ['GENERATEDd000004']],
    [{ search: '_' }, ['GENERATEDd000004']],
    [{ type: 'active', premium: 'false', expired: 'false' }, ['ACTIVEccc0000003']],
    [{ type: 'generated', bound: 'true' }, []],
  ])('filters by %j', async (query, expected) => {
    const s = await mixedService();
    const res = await list(s, query as Record<string, string>);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(keysOf(res)).toEqual(expected);
    expect(res.body.data.total).toBe(expected.length);
  });

  it.each([
    [
      { sort: 'createdAt', order: 'asc' },
      ['ACTIVEaaa0000001', 'ACTIVEbbb0000002', 'ACTIVEccc0000003', 'GENERATEDd000004', 'GENERATEDe000005'],
    ],
    // Lifetime keys (no expiry) come last in either order.
    [
      { sort: 'expiresAt', order: 'asc' },
      ['ACTIVEbbb0000002', 'ACTIVEccc0000003', 'GENERATEDd000004', 'ACTIVEaaa0000001', 'GENERATEDe000005'],
    ],
    [
      { sort: 'expiresAt', order: 'desc' },
      ['GENERATEDd000004', 'ACTIVEccc0000003', 'ACTIVEbbb0000002', 'GENERATEDe000005', 'ACTIVEaaa0000001'],
    ],
    // Never used (every generated key) comes last in either order.
    [
      { sort: 'lastUsedAt', order: 'desc' },
      ['ACTIVEaaa0000001', 'ACTIVEbbb0000002', 'GENERATEDe000005', 'GENERATEDd000004', 'ACTIVEccc0000003'],
    ],
    [
      { sort: 'lastUsedAt', order: 'asc' },
      ['ACTIVEbbb0000002', 'ACTIVEaaa0000001', 'ACTIVEccc0000003', 'GENERATEDd000004', 'GENERATEDe000005'],
    ],
    // Ties break by key, in the same direction.
    [
      { sort: 'executions', order: 'desc' },
      ['ACTIVEccc0000003', 'ACTIVEaaa0000001', 'ACTIVEbbb0000002', 'GENERATEDe000005', 'GENERATEDd000004'],
    ],
    [
      { sort: 'executions', order: 'asc' },
      ['GENERATEDd000004', 'GENERATEDe000005', 'ACTIVEbbb0000002', 'ACTIVEaaa0000001', 'ACTIVEccc0000003'],
    ],
  ])('sorts by %j', async (query, expected) => {
    const s = await mixedService();
    const res = await list(s, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(keysOf(res)).toEqual(expected);
  });

  // The sort's index holds the hour of last use (migration 0022); within an hour the exact time still orders.
  it.each([
    ['desc', ['ACTIVEd', 'ACTIVEb', 'ACTIVEa', 'ACTIVEc', 'ACTIVEe', 'ACTIVEg', 'GENERATEf']],
    ['asc', ['ACTIVEg', 'ACTIVEe', 'ACTIVEc', 'ACTIVEa', 'ACTIVEb', 'ACTIVEd', 'GENERATEf']],
  ])('sorts by the exact time of last use within an hour and across hours (%s)', async (order, expected) => {
    const s = await newService();
    const hour = Math.floor(t().clock.now / HOUR_MS) * HOUR_MS;
    const used: Array<[string, number | null]> = [
      ['ACTIVEa', hour + 10 * 60_000],
      ['ACTIVEb', hour + 50 * 60_000],
      ['ACTIVEc', hour + 10 * 60_000 - 1],
      ['ACTIVEd', hour + 50 * 60_000], // the same time as b: the key breaks the tie
      ['ACTIVEe', hour - 5 * 60_000],
      ['ACTIVEg', hour - 2 * HOUR_MS],
    ];
    const prefix = `H${String(++services).padStart(PREFIX_LENGTH - 1, '0')}`;
    await seedKeys(t().ctx, s.id, [
      ...used.map(([key, lastUsedAt]): SeedKey => ({
        key: `${prefix}${key}00000000`,
        type: 'active',
        createdAt: hour - DAY_MS,
        lastUsedAt,
      })),
      { key: `${prefix}GENERATEf0000000`, type: 'generated', createdAt: hour - DAY_MS },
    ]);
    const res = await list(s, { sort: 'lastUsedAt', order });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(keysOf(res).map((key) => key.replace(/0+$/, ''))).toEqual(expected);
  });

  it.each([
    ['type', 'inactive'],
    ['status', 'expired'],
    ['premium', '1'],
    ['bound', 'yes'],
    ['expired', 'TRUE'],
    ['sort', 'note'],
    ['order', 'up'],
    ['page', '0'],
    ['limit', '101'],
    ['limit', '1.5'],
    ['search', ''],
    ['search', 'x'.repeat(257)],
    ['colour', 'red'],
  ])('refuses %s=%s with a 400 naming it', async (field, value) => {
    const s = await newService();
    expectValidationError(await list(s, { [field]: value }), field);
  });

  it("never shows another service's keys, and an account key needs X-Service-Id", async () => {
    const s = await mixedService();
    const other = await seedService(t().ctx);
    const res = await list(other);
    expect(res.body.data).toMatchObject({ items: [], total: 0 });
    const viaAccount = await call(t().app, 'GET', '/api/v1/keys/api/keys', {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.identifier },
    });
    expect(viaAccount.body.data.total).toBe(5);
    const foreign = await call(t().app, 'GET', '/api/v1/keys/api/keys', {
      key: other.account.accountKey,
      headers: { 'x-service-id': s.identifier },
    });
    expectError(foreign, 404, 'NOT_FOUND');
    expectError(await call(t().app, 'GET', '/api/v1/keys/api/keys'), 401, 'UNAUTHORIZED');
  });
});
