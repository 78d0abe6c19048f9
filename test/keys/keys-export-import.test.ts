import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, expectError, expectValidationError, iso, serviceSeeder } from '../helpers/records.ts';
import { seedKeys } from './keys-data.fixtures.ts';
import { joinHwids, splitHwids } from '../../src/modules/keys/keys-csv.ts';

// Contract §7.4: GET /keys/api/keys/export and POST /keys/api/keys/import.
const t = useTestApp();
const newService = serviceSeeder(t);

const COLUMNS =
  'key,type,status,hwids,note,isPremium,noHwidValidation,maxHwids,expiresAt,chatId,executions,createdAt,activatedAt,lastUsedAt';
// Contract §12.1 adds durationDays after lastUsedAt; an import still takes a CSV without it (an older export).
const EXPORT_COLUMNS = `${COLUMNS},durationDays`;
let counter = 0;
const uniqueKey = (tag: string) => `${tag}${process.pid}x${++counter}`.padEnd(12, '0');

async function exported(s: SeededService, query: Record<string, string> = {}) {
  const res = await t().app.inject({
    method: 'GET',
    url: `/api/v1/keys/api/keys/export?${new URLSearchParams(query)}`,
    headers: { 'x-api-key': s.serviceKey },
  });
  return res;
}
const importKeys = (s: SeededService, body: unknown, key = s.serviceKey) =>
  call(t().app, 'POST', '/api/v1/keys/api/keys/import', { key, body });
const listAll = async (s: SeededService) =>
  (await call(t().app, 'GET', '/api/v1/keys/api/keys?limit=100&sort=createdAt&order=asc', { key: s.serviceKey })).body.data.items as Array<
    Record<string, unknown>
  >;

/** One bound active key with awkward text, one generated lifetime key. */
async function twoKeys(s: SeededService) {
  const now = t().clock.now;
  const active = uniqueKey('act');
  const generated = uniqueKey('gen');
  await seedKeys(t().ctx, s.id, [
    {
      key: active,
      type: 'active',
      createdAt: now - 2 * DAY_MS,
      // An HWID is whatever the script's user sends: `|` (the cell's separator) and `\` must come back as they were.
      hwids: ['pc,one', 'pc "two"', 'pc|three\\'],
      maxHwids: 3,
      executions: 4,
      lastUsedAt: now - DAY_MS,
      note: 'line, "quoted"',
      chatId: '123456789012345678',
      expiresAt: now + 9 * DAY_MS,
      isPremium: true,
    },
    { key: generated, type: 'generated', createdAt: now - DAY_MS, status: 'paused' },
  ]);
  return { active, generated };
}

/**
 * Keys that differ in every exported field: several HWIDs, reset times and counts, an activation later than the
 * creation, premium and noHwidValidation, each status, expired and lifetime keys, and generated keys of each
 * expirationType (one of them generated through the API, byDays).
 */
async function richKeys(s: SeededService) {
  const now = t().clock.now;
  const keys = {
    bound: uniqueKey('rba'),
    unbound: uniqueKey('rbu'),
    expired: uniqueKey('rbe'),
    byDays: uniqueKey('rgd'),
    byDate: uniqueKey('rgt'),
    lifetime: uniqueKey('rgl'),
  };
  await seedKeys(t().ctx, s.id, [
    {
      key: keys.bound,
      type: 'active',
      createdAt: now - 5 * DAY_MS,
      activatedAt: now - 4 * DAY_MS,
      hwids: ['pc,one', 'pc "two"', 'PC-3'],
      maxHwids: 5,
      maxSessions: 3,
      executions: 41,
      lastUsedAt: now - HOUR,
      note: 'line, "quoted"\u00e9',
      chatId: '123456789012345678',
      expiresAt: now + 9 * DAY_MS,
      isPremium: true,
      noHwidValidation: true,
      hwidResetAt: now - 3 * DAY_MS,
      hwidResetCount: 2,
    },
    // Active by its type alone: unbound since a reset, never executed; bound before its first use, so its time has
    // not started (contract §23).
    {
      key: keys.unbound,
      type: 'active',
      pendingDays: 6,
      createdAt: now - 6 * DAY_MS,
      status: 'banned',
      // Contract §19: the ban's reason and end travel through an export and back.
      banReason: 'chargeback, "twice"',
      banExpiresAt: now + 20 * DAY_MS,
      hwidResetAt: now - 2 * DAY_MS,
      hwidResetCount: 7,
    },
    {
      key: keys.expired,
      type: 'active',
      createdAt: now - 30 * DAY_MS,
      activatedAt: now - 29 * DAY_MS,
      status: 'paused',
      hwids: ['only-one'],
      maxHwids: 2,
      executions: 3,
      lastUsedAt: now - 20 * DAY_MS,
      expiresAt: now - DAY_MS,
      chatId: '98765432109876543',
    },
    {
      key: keys.byDays,
      type: 'generated',
      createdAt: now - 7 * DAY_MS,
      expirationType: 'byDays',
      expiresAt: now + 23 * DAY_MS,
      isPremium: true,
      noHwidValidation: true,
      note: 'gift',
      chatId: '11112222333344445',
      maxHwids: 4,
      maxSessions: 5,
      status: 'paused',
    },
    {
      key: keys.byDate,
      type: 'generated',
      createdAt: now - 8 * DAY_MS,
      expirationType: 'byDate',
      expiresAt: now + 60 * DAY_MS,
      status: 'banned',
    },
    { key: keys.lifetime, type: 'generated', createdAt: now - 9 * DAY_MS },
  ]);
  const [viaApi] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 30, maxHwids: 3, isPremium: true });
  // Contract §12.1: time that starts at redemption, so durationDays takes a value too.
  const [afterRedeem] = await generateKeys(t().app, s.serviceKey, { expirationType: 'afterRedeem', days: 12 });
  return [...Object.values(keys), viaApi!, afterRedeem!];
}
const HOUR = 3_600_000;

/** Moves keys to a fresh service the way a seller would: export, delete (keys are unique server-wide), import. */
async function moved(format: 'csv' | 'json') {
  const from = await newService();
  const keys = await richKeys(from);
  const exportedBody = (await exported(from, { format })).body;
  const before = await listAll(from);
  const removed = await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', { key: from.serviceKey, body: { action: 'delete', keys } });
  expect(removed.body.data.updated).toBe(keys.length);
  const to = await newService();
  const res = await importKeys(to, {
    format: format === 'csv' ? 'keyward-csv' : 'keyward-json',
    data: format === 'csv' ? exportedBody : JSON.parse(exportedBody),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.data).toEqual({ imported: { active: 3, generated: 5 }, skipped: 0 });
  return { exportedBody, before, after: await listAll(to), again: (await exported(to, { format })).body };
}

/** Every field of every record, named in the failure: which key, which field. */
function expectSameFields(after: Array<Record<string, unknown>>, before: Array<Record<string, unknown>>, fields?: readonly string[]) {
  expect(after.map((r) => r.key)).toEqual(before.map((r) => r.key));
  before.forEach((was, i) => {
    const now = after[i]!;
    for (const field of fields ?? new Set([...Object.keys(was), ...Object.keys(now)]))
      expect(now[field], `${String(was.key)}.${field}`).toEqual(was[field]);
  });
}

/** Each field takes at least two values across the fixtures, so an importer writing a constant would show. */
function expectEveryFieldVaries(records: Array<Record<string, unknown>>, fields: readonly string[]) {
  for (const field of fields) {
    const values = new Set(records.map((r) => JSON.stringify(r[field])));
    expect(values.size, `${field} takes a single value in the fixtures`).toBeGreaterThan(1);
  }
}

describe('the import → export round trip', () => {
  it('JSON reproduces every field of every record, hwidResetAt, hwidResetCount and byDays included', async () => {
    const { before, after, exportedBody, again } = await moved('json');
    for (const type of ['active', 'generated']) {
      const ofType = before.filter((r) => r.type === type);
      expectEveryFieldVaries(
        ofType,
        // createdBy is not carried: contract §17 records imported keys as made by no one.
        Object.keys(ofType[0]!).filter((field) => field !== 'type' && field !== 'createdBy'),
      );
    }
    const notCreatedBy = (records: Array<Record<string, unknown>>) => records.map(({ createdBy: _, ...rest }) => rest);
    expect(after.every((r) => r.createdBy === null)).toBe(true);
    expectSameFields(notCreatedBy(after), notCreatedBy(before));
    expectSameFields(notCreatedBy(JSON.parse(again)), notCreatedBy(JSON.parse(exportedBody)));
    expect(after.filter((r) => r.expirationType === 'byDays')).toHaveLength(2);
    expect(after.find((r) => r.hwidResetCount === 2)).toMatchObject({
      hwidResetAt: iso(t().clock.now - 3 * DAY_MS),
      hwids: ['pc,one', 'pc "two"', 'PC-3'],
    });
  });

  it('CSV reproduces every column of the contract; fields without a column take their defaults', async () => {
    const { before, after, exportedBody, again } = await moved('csv');
    const columns = EXPORT_COLUMNS.split(',');
    const rowsBefore = parse(exportedBody, { columns: true }) as Array<Record<string, string>>;
    expectEveryFieldVaries(
      rowsBefore,
      columns.filter((c) => c !== 'key'),
    );
    expectSameFields(parse(again, { columns: true }), rowsBefore, columns);
    expect(again).toBe(exportedBody);
    // The records agree on every field a CSV column carries…
    const carried = [
      'key',
      'type',
      'status',
      'hwid',
      'hwids',
      'note',
      'isPremium',
      'noHwidValidation',
      'maxHwids',
      'expiresAt',
      'chatId',
      'createdAt',
      'durationDays',
    ];
    expectSameFields(after, before, carried);
    expectSameFields(
      after.filter((r) => r.type === 'active'),
      before.filter((r) => r.type === 'active'),
      ['executions', 'activatedAt', 'lastUsedAt'],
    );
    // …and the contract's CSV has no column for these (README: JSON is the lossless format).
    for (const record of after) {
      expect(record.maxSessions, String(record.key)).toBe(0);
      if (record.type === 'active') expect(record, String(record.key)).toMatchObject({ hwidResetAt: null, hwidResetCount: 0 });
      else
        expect(record.expirationType, String(record.key)).toBe(
          record.durationDays !== null ? 'afterRedeem' : record.expiresAt === null ? 'lifetime' : 'byDate',
        );
    }
  });
});

describe('GET /keys/api/keys/export', () => {
  it('streams RFC 4180 CSV with the contract columns and a dated file name', async () => {
    const s = await newService();
    const { active, generated } = await twoKeys(s);
    const res = await exported(s);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${s.identifier}-keys-2026-11-22.csv"`);
    expect(res.body.split('\r\n')[0]).toBe(EXPORT_COLUMNS);
    const rows = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    const now = t().clock.now;
    expect(rows).toEqual([
      {
        key: active,
        type: 'active',
        status: 'active',
        hwids: 'pc,one|pc "two"|pc\\|three\\\\',
        note: 'line, "quoted"',
        isPremium: 'true',
        noHwidValidation: 'false',
        maxHwids: '3',
        expiresAt: iso(now + 9 * DAY_MS),
        chatId: '123456789012345678',
        executions: '4',
        createdAt: iso(now - 2 * DAY_MS),
        activatedAt: iso(now - 2 * DAY_MS),
        lastUsedAt: iso(now - DAY_MS),
        durationDays: '',
      },
      {
        key: generated,
        type: 'generated',
        status: 'paused',
        hwids: '',
        note: '',
        isPremium: 'false',
        noHwidValidation: 'false',
        maxHwids: '1',
        expiresAt: '',
        chatId: '',
        executions: '0',
        createdAt: iso(now - DAY_MS),
        activatedAt: '',
        lastUsedAt: '',
        durationDays: '',
      },
    ]);
  });

  it('exports JSON as an array of the listed records, honouring the list filters', async () => {
    const s = await newService();
    const { active } = await twoKeys(s);
    const res = await exported(s, { format: 'json', bound: 'true' });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${s.identifier}-keys-2026-11-22.json"`);
    const listed = (await call(t().app, 'GET', '/api/v1/keys/api/keys?bound=true', { key: s.serviceKey })).body.data.items;
    expect(res.json()).toEqual(listed);
    expect(res.json().map((r: { key: string }) => r.key)).toEqual([active]);
    expect((await exported(s, { format: 'json', search: 'no-such-thing' })).json()).toEqual([]);
  });

  it('walks past one batch without skipping or repeating a key', async () => {
    const s = await newService();
    const now = t().clock.now;
    const keys = Array.from({ length: 2100 }, (_, i) => ({
      key: `bulk${process.pid}k${String(i).padStart(5, '0')}`,
      type: 'generated' as const,
      createdAt: now,
    }));
    await t()
      .ctx.db.transaction()
      .execute(async (trx) => {
        for (let i = 0; i < keys.length; i += 300) {
          await trx
            .insertInto('generatedKeys')
            .values(
              keys.slice(i, i + 300).map((k) => ({
                key: k.key,
                serviceId: s.id,
                note: null,
                isPremium: 0,
                noHwidValidation: 0,
                status: 'active',
                expiresAt: null,
                chatId: null,
                expirationType: 'lifetime',
                createdAt: now,
              })),
            )
            .execute();
        }
      });
    const rows = parse((await exported(s)).body, { columns: true }) as Array<{ key: string }>;
    expect(rows.map((r) => r.key)).toEqual(keys.map((k) => k.key));
  });

  it.each([
    ['format', 'xml'],
    ['type', 'both'],
    ['page', '1'],
  ])('refuses %s=%s', async (field, value) => {
    const s = await newService();
    const res = await call(t().app, 'GET', `/api/v1/keys/api/keys/export?${field}=${value}`, { key: s.serviceKey });
    expectValidationError(res, field);
  });

  it("exports only the caller's service", async () => {
    const s = await newService();
    await twoKeys(s);
    const other = await seedService(t().ctx);
    expect((await exported(other, { format: 'json' })).json()).toEqual([]);
  });
});

describe('POST /keys/api/keys/import', () => {
  it('round-trips a CSV export into another service: same records, HWIDs in order', async () => {
    const from = await newService();
    const { active, generated } = await twoKeys(from);
    const csv = (await exported(from)).body;
    const before = await listAll(from);
    // Keys are unique across the server: free them first, as a seller moving services would.
    await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', {
      key: from.serviceKey,
      body: { action: 'delete', keys: [active, generated] },
    });
    const to = await newService();
    const res = await importKeys(to, { format: 'keyward-csv', data: csv });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toEqual({ imported: { active: 1, generated: 1 }, skipped: 0 });
    const after = await listAll(to);
    expect(after).toEqual(before);
    expect(after[0]).toMatchObject({ key: active, hwids: ['pc,one', 'pc "two"', 'pc|three\\'], hwid: 'pc,one' });
    expect(
      await t().ctx.db.selectFrom('keyHwids').select(['hwid', 'position']).where('key', '=', active).orderBy('position').execute(),
    ).toEqual([
      { hwid: 'pc,one', position: 1 },
      { hwid: 'pc "two"', position: 2 },
      { hwid: 'pc|three\\', position: 3 },
    ]);
  });

  it('reads a backslash in an older export as it was written, unless it escapes `|` or `\\`', () => {
    expect(splitHwids('pc\\one|two')).toEqual(['pc\\one', 'two']);
    expect(splitHwids('a\\|b|c\\\\d')).toEqual(['a|b', 'c\\d']);
    expect(splitHwids(joinHwids(['|', '\\', '\\|', '']))).toEqual(['|', '\\', '\\|', '']);
  });

  it('round-trips a JSON export, and the imported active key validates on its HWID', async () => {
    const from = await newService();
    const { active, generated } = await twoKeys(from);
    const [byDays] = await generateKeys(t().app, from.serviceKey, { expirationType: 'byDays', days: 30, maxHwids: 2 });
    const json = (await exported(from, { format: 'json' })).json();
    await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', {
      key: from.serviceKey,
      body: { action: 'delete', keys: [active, generated, byDays] },
    });
    const to = await newService();
    const res = await importKeys(to, { format: 'keyward-json', data: json });
    expect(res.body.data).toEqual({ imported: { active: 1, generated: 2 }, skipped: 0 });
    // Everything but who made the keys: an import records none (contract §17).
    const imported = (await exported(to, { format: 'json' })).json() as Array<Record<string, unknown>>;
    expect(imported).toEqual(json.map((r: Record<string, unknown>) => ({ ...r, createdBy: null })));
  });

  it('reads Luarmor user records: key, HWID, chat id, note, expiry, ban, counters; other fields ignored', async () => {
    const s = await newService();
    const [bound, lifetime, banned] = [uniqueKey('lua'), uniqueKey('lub'), uniqueKey('luc')];
    const base = { status: 'active', last_reset: 0, key_days: -1, ban_reason: '', ban_expire: -1, identifier_type: 'hwid' };
    const res = await importKeys(s, {
      format: 'luarmor',
      data: [
        {
          ...base,
          user_key: bound,
          identifier: 'LUARMOR-HWID-1',
          discord_id: '987654321098765432',
          note: 'from luarmor',
          auth_expire: 1_900_000_000,
          banned: 0,
          total_executions: 12,
          total_resets: 3,
        },
        {
          ...base,
          user_key: lifetime,
          identifier: '',
          discord_id: '',
          note: '',
          auth_expire: -1,
          banned: 0,
          total_executions: 0,
          total_resets: 0,
        },
        { ...base, user_key: banned, identifier: '', auth_expire: 0, banned: 1, total_executions: 0, total_resets: 0 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toEqual({ imported: { active: 1, generated: 2 }, skipped: 0 });
    const listed = await listAll(s);
    const byKey = new Map(listed.map((r) => [r.key, r]));
    expect(byKey.get(bound)).toMatchObject({
      type: 'active',
      hwid: 'LUARMOR-HWID-1',
      hwids: ['LUARMOR-HWID-1'],
      chatId: '987654321098765432',
      note: 'from luarmor',
      expiresAt: iso(1_900_000_000_000),
      status: 'active',
      executions: 12,
      hwidResetCount: 3,
    });
    expect(byKey.get(lifetime)).toMatchObject({
      type: 'generated',
      expiresAt: null,
      chatId: null,
      note: null,
      status: 'active',
      expirationType: 'lifetime',
    });
    expect(byKey.get(banned)).toMatchObject({ type: 'generated', expiresAt: null, status: 'banned' });
    const validate = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key: bound, hwid: 'LUARMOR-HWID-1' })}`,
    );
    expect(validate.body.data).toMatchObject({ valid: true, code: 'KEY_VALID' });
  });

  it('answers 409 listing keys that exist anywhere on the server, importing nothing; skip imports the rest', async () => {
    const s = await newService();
    const other = await seedService(t().ctx);
    const theirs = uniqueKey('own');
    await seedKeys(t().ctx, other.id, [{ key: theirs, type: 'generated', createdAt: t().clock.now }]);
    const fresh = uniqueKey('new');
    const body = { format: 'keyward-json', data: [{ key: fresh }, { key: theirs }] };
    const res = await importKeys(s, body);
    expectError(res, 409, 'CONFLICT');
    expect(res.body.duplicates).toEqual([theirs]);
    expect(await listAll(s)).toEqual([]);
    const skipped = await importKeys(s, { ...body, onDuplicate: 'skip' });
    expect(skipped.status).toBe(201);
    expect(skipped.body.data).toEqual({ imported: { active: 0, generated: 1 }, skipped: 1 });
    // The other service's key is untouched.
    expect(await t().ctx.db.selectFrom('generatedKeys').select('serviceId').where('key', '=', theirs).executeTakeFirst()).toEqual({
      serviceId: other.id,
    });
  });

  it('refuses the whole import listing each invalid record by index and field, at most 100', async () => {
    const s = await newService();
    const good = uniqueKey('ok');
    const res = await importKeys(s, {
      format: 'keyward-json',
      data: [
        { key: good },
        { key: 'short' },
        { key: uniqueKey('st'), status: 'deleted' },
        { key: uniqueKey('hw'), hwids: ['a', 'b'], maxHwids: 1 },
        { key: uniqueKey('ch'), chatId: '12' },
        { key: uniqueKey('ex'), expiresAt: 'tomorrow' },
        { key: good },
        'not an object',
        { key: uniqueKey('xx'), colour: 'red' },
      ],
    });
    expectValidationError(res, 'data');
    expect(res.body.errors).toEqual([
      { index: 1, field: 'key', error: expect.any(String) },
      { index: 2, field: 'status', error: expect.any(String) },
      { index: 3, field: 'hwids', error: expect.any(String) },
      { index: 4, field: 'chatId', error: expect.any(String) },
      { index: 5, field: 'expiresAt', error: expect.any(String) },
      { index: 6, field: 'key', error: 'appears more than once in this import' },
      { index: 7, field: 'record', error: expect.any(String) },
      { index: 8, field: 'colour', error: 'is not a known field' },
    ]);
    expect(await listAll(s)).toEqual([]);
    const many = await importKeys(s, { format: 'keyward-json', data: Array.from({ length: 150 }, () => ({ key: 'bad!' })) });
    expect(many.body.errors).toHaveLength(100);
  });

  it('refuses CSV that is not an export', async () => {
    const s = await newService();
    const res = await importKeys(s, { format: 'keyward-csv', data: `${COLUMNS}\n"unterminated` });
    expectValidationError(res, 'data');
    const wrongCell = await importKeys(s, {
      format: 'keyward-csv',
      data: `${COLUMNS}\n${uniqueKey('cs')},active,active,,,maybe,false,1,,,0,,,`,
    });
    expectValidationError(wrongCell, 'data');
    expect(wrongCell.body.errors).toEqual([{ index: 0, field: 'isPremium', error: 'must be true or false' }]);
  });

  it("refuses a CSV whose header is not the contract's columns, naming the problem, and imports nothing", async () => {
    const s = await newService();
    const row = `${uniqueKey('hd')},generated,active,,,false,false,1,,,0,,,`;
    const cases: Array<[string, string, RegExp]> = [
      ['a missing column', `${COLUMNS.replace(',chatId', '')}\n${row}`, /lacks column\(s\) chatId/],
      ['an unknown column', `${COLUMNS},colour\n${row}`, /unknown column\(s\) "colour"/],
      ['a renamed column', `${COLUMNS.replace('hwids', 'hwid')}\n${row}`, /unknown column\(s\) "hwid"/],
      ['a repeated column', `${COLUMNS.replace('chatId', 'note')}\n${row}`, /names note more than once/],
      ['no header at all', '', /no CSV header line/],
      [
        'a row longer than the header',
        `${COLUMNS}\n${row}\n${row.replace('hd', 'he')},extra`,
        /row at index 1 has 15 cells; the header has 14/,
      ],
    ];
    for (const [name, data, message] of cases) {
      const res = await importKeys(s, { format: 'keyward-csv', data });
      expectValidationError(res, 'data');
      expect(res.body.error, name).toMatch(message);
    }
    expect(await listAll(s)).toEqual([]);
  });

  it("takes the contract's columns in any order, reading each cell by its header", async () => {
    const s = await newService();
    const key = uniqueKey('ro');
    const columns = COLUMNS.split(',').reverse();
    const record: Record<string, string> = {
      key,
      type: 'active',
      status: 'paused',
      hwids: 'A|B',
      note: 'reordered',
      isPremium: 'true',
      noHwidValidation: 'false',
      maxHwids: '2',
      expiresAt: '2027-01-01T00:00:00.000Z',
      chatId: '',
      executions: '5',
      createdAt: '2026-11-01T00:00:00.000Z',
      activatedAt: '2026-11-02T00:00:00.000Z',
      lastUsedAt: '',
      durationDays: '',
    };
    const data = `${columns.join(',')}\r\n${columns.map((c) => record[c]).join(',')}\r\n`;
    const res = await importKeys(s, { format: 'keyward-csv', data });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(parse((await exported(s)).body, { columns: true })).toEqual([record]);
  });

  it('refuses a Luarmor record without user_key, naming its index and the field', async () => {
    const s = await newService();
    const res = await importKeys(s, {
      format: 'luarmor',
      data: [
        { user_key: uniqueKey('lk'), identifier: '' },
        { identifier: 'PC-1', total_executions: 2 },
        { user_key: null },
        { user_key: 12345678 },
      ],
    });
    expectValidationError(res, 'data');
    expect(res.body.errors).toEqual([
      { index: 1, field: 'user_key', error: 'must be a key: 8 to 64 of A-Z a-z 0-9 _ -' },
      { index: 2, field: 'user_key', error: 'must be a key: 8 to 64 of A-Z a-z 0-9 _ -' },
      { index: 3, field: 'user_key', error: 'must be a key: 8 to 64 of A-Z a-z 0-9 _ -' },
    ]);
    expect(await listAll(s)).toEqual([]);
  });

  it('reads hwid as the first of hwids: alone it binds, beside hwids it must agree', async () => {
    const s = await newService();
    const alone = uniqueKey('ha');
    const res = await importKeys(s, { format: 'keyward-json', data: [{ key: alone, hwid: 'PC-9' }] });
    expect(res.body.data).toEqual({ imported: { active: 1, generated: 0 }, skipped: 0 });
    expect(await listAll(s)).toMatchObject([{ key: alone, type: 'active', hwid: 'PC-9', hwids: ['PC-9'] }]);
    const disagree = await importKeys(s, {
      format: 'keyward-json',
      data: [
        { key: uniqueKey('hb'), hwid: 'B', hwids: ['A', 'B'], maxHwids: 2 },
        { key: uniqueKey('hc'), hwid: 'A', hwids: [] },
        { key: uniqueKey('hd'), hwid: 7 },
        { key: uniqueKey('he'), type: 'active', hwid: null, hwids: [] },
      ],
    });
    expectValidationError(disagree, 'data');
    expect(disagree.body.errors.map((e: { index: number; field: string }) => [e.index, e.field])).toEqual([
      [0, 'hwid'],
      [1, 'hwid'],
      [2, 'hwid'],
    ]);
  });

  it('refuses fields the resulting key could not keep instead of dropping them', async () => {
    const s = await newService();
    const res = await importKeys(s, {
      format: 'keyward-json',
      data: [
        { key: uniqueKey('ga'), type: 'generated', hwidResetAt: '2026-11-01T00:00:00.000Z' },
        { key: uniqueKey('gb'), hwidResetCount: 3 },
        { key: uniqueKey('gc'), lastUsedAt: '2026-11-01T00:00:00.000Z' },
        { key: uniqueKey('gd'), type: 'generated', activatedAt: 0 },
        { key: uniqueKey('ge'), type: 'active', expirationType: 'byDays', expiresAt: '2027-01-01T00:00:00.000Z' },
        { key: uniqueKey('gf'), expirationType: 'forever', expiresAt: '2027-01-01T00:00:00.000Z' },
        { key: uniqueKey('gg'), expirationType: 'byDays' },
        { key: uniqueKey('gh'), type: 'active', hwidResetAt: '2026-11-01T00:00:00.000Z', hwidResetCount: 3 },
      ],
    });
    expectValidationError(res, 'data');
    expect(res.body.errors.map((e: { index: number; field: string }) => [e.index, e.field])).toEqual([
      [0, 'hwidResetAt'],
      [1, 'hwidResetCount'],
      [2, 'lastUsedAt'],
      [3, 'activatedAt'],
      [4, 'expirationType'],
      [5, 'expirationType'],
      [6, 'expirationType'],
    ]);
    expect(await listAll(s)).toEqual([]);
  });

  it('takes 10,000 records and refuses 10,001 with 413, importing nothing', async () => {
    const s = await newService();
    const tooMany = await importKeys(s, {
      format: 'keyward-json',
      data: Array.from({ length: 10_001 }, (_, i) => ({ key: `many${process.pid}r${String(i).padStart(5, '0')}` })),
    });
    // The "over 10,000 records or 16 MB (413)": the record limit answers like the size limit.
    expectError(tooMany, 413, 'PAYLOAD_TOO_LARGE');
    expect(tooMany.body).toMatchObject({ field: 'data', error: 'An import holds at most 10000 records; this one has 10001' });
    expect(await listAll(s)).toEqual([]);
    const enough = await importKeys(s, {
      format: 'keyward-json',
      data: Array.from({ length: 10_000 }, (_, i) => ({ key: `many${process.pid}r${String(i).padStart(5, '0')}` })),
    });
    expect(enough.status, JSON.stringify(enough.body).slice(0, 300)).toBe(201);
    expect(enough.body.data.imported).toEqual({ active: 0, generated: 10_000 });
  });

  it('accepts a body above 1 MB and refuses one above 16 MB with 413', async () => {
    const s = await newService();
    const note = 'n'.repeat(200);
    const big = Array.from({ length: 6000 }, (_, i) => ({ key: `big${process.pid}r${String(i).padStart(5, '0')}`, note }));
    const res = await importKeys(s, { format: 'keyward-json', data: big });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    const huge = await importKeys(s, { format: 'keyward-csv', data: 'x'.repeat(16 * 1024 * 1024) });
    expectError(huge, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('writes one keys.import audit entry in the same transaction', async () => {
    const s = await newService();
    await importKeys(s, { format: 'keyward-json', data: [{ key: uniqueKey('au') }] });
    const entries = await t()
      .ctx.db.selectFrom('auditLog')
      .selectAll()
      .where('serviceId', '=', s.id)
      .where('action', '=', 'keys.import')
      .execute();
    expect(entries).toHaveLength(1);
    expect(JSON.parse(entries[0]!.details)).toEqual({ format: 'keyward-json', imported: { active: 0, generated: 1 }, skipped: 0 });
  });

  it.each([
    ['format', { format: 'excel', data: [] }],
    ['data', { format: 'keyward-json' }],
    ['data', { format: 'keyward-json', data: { key: 'abcdefgh' } }],
    ['data', { format: 'keyward-json', data: 'key\nabc' }],
    ['data', { format: 'keyward-json', data: [] }],
    ['onDuplicate', { format: 'keyward-json', data: [{ key: 'abcdefgh1' }], onDuplicate: 'overwrite' }],
    ['extra', { format: 'keyward-json', data: [{ key: 'abcdefgh1' }], extra: true }],
  ])('refuses a bad %s', async (field, body) => {
    const s = await newService();
    expectValidationError(await importKeys(s, body), field);
  });

  it('needs allowManageKeys on a service key', async () => {
    const s = await newService();
    await t().ctx.db.updateTable('services').set({ allowManageKeys: 0 }).where('id', '=', s.id).execute();
    expectError(await importKeys(s, { format: 'keyward-json', data: [{ key: uniqueKey('pm') }] }), 403, 'PERMISSION_DENIED');
  });
});
