import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededAccount, type SeededService } from '../helpers/seed.ts';
import { addMember, asMember } from './team-helpers.ts';

// Contract §17's role table, route family by route family: what a role may do answers 2xx, what it may not is
// 403 ROLE_FORBIDDEN, and a key outside a reseller's own is 404. The owner acts with its account key, like a member.
const t = useTestApp();

type Who = 'owner' | 'manager' | 'support' | 'reseller';
const WHO: Who[] = ['owner', 'manager', 'support', 'reseller'];
let s: SeededService;
const people = {} as Record<Who, SeededAccount>;

beforeAll(async () => {
  const { app, ctx } = t();
  s = await seedService(ctx);
  people.owner = s.account;
  people.manager = await addMember(app, ctx, s, 'manager');
  people.support = await addMember(app, ctx, s, 'support');
  people.reseller = await addMember(app, ctx, s, 'reseller', { keysLeft: 1000, maxDays: null, allowLifetime: true });
});

/** A generated key made by `who` (the owner's service key for the staff, so a reseller's is its own). */
async function keyFor(who: Who, body: Record<string, unknown> = { expirationType: 'byDays', days: 10 }) {
  if (who !== 'reseller') return (await generateKeys(t().app, s.serviceKey, body))[0]!;
  const res = await asMember(t().app, people.reseller, s, 'POST', '/keys/api/generate', body);
  expect(res.status).toBe(201);
  return res.body.data.keys[0].key as string;
}

interface Family {
  name: string;
  allowed: Who[];
  run: (who: Who) => Promise<{ status: number; body: { code?: string; error?: string } }>;
}

const families: Family[] = [
  { name: 'keys.read: list keys', allowed: WHO, run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/keys') },
  {
    // Counts over every key of the service: analytics, not a reseller's own keys (contract §17).
    name: 'keys.insights: service status',
    allowed: ['owner', 'manager', 'support'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/service/status'),
  },
  {
    name: 'keys.insights: analytics',
    allowed: ['owner', 'manager', 'support'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/analytics'),
  },
  {
    name: 'keys.insights: audit',
    allowed: ['owner', 'manager', 'support'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/audit'),
  },
  {
    name: 'keys.generate',
    allowed: ['owner', 'manager', 'reseller'],
    run: (who) => asMember(t().app, people[who], s, 'POST', '/keys/api/generate', { expirationType: 'lifetime' }),
  },
  {
    name: 'keys.support: pause and note',
    allowed: WHO,
    run: async (who) =>
      asMember(t().app, people[who], s, 'PUT', '/keys/api/generated-key', { key: await keyFor(who), status: 'paused', note: 'chargeback' }),
  },
  {
    // Contract §25: the four terms of the reseller key policy are a reseller's too, within its policy (the default's here).
    name: 'keys.policy: a key edit of HWIDs, HWID check, premium or devices at once',
    allowed: ['owner', 'manager', 'reseller'],
    run: async (who) =>
      asMember(t().app, people[who], s, 'PUT', '/keys/api/generated-key', { key: await keyFor(who), maxHwids: 1, isPremium: false }),
  },
  {
    name: 'keys.manage: a key edit that changes its expiry',
    allowed: ['owner', 'manager'],
    run: async (who) =>
      asMember(t().app, people[who], s, 'PUT', '/keys/api/generated-key', {
        key: await keyFor(who),
        expirationType: 'afterRedeem',
        days: 5,
      }),
  },
  {
    name: 'keys.manage: extend',
    allowed: ['owner', 'manager'],
    run: async (who) => asMember(t().app, people[who], s, 'POST', '/keys/api/key/extend-expiration', { key: await keyFor(who), days: 1 }),
  },
  {
    // Contract §17's table, §23: bulk is keys.manage whatever the action.
    name: 'keys.manage: ban from the list (bulk)',
    allowed: ['owner', 'manager'],
    run: async (who) => asMember(t().app, people[who], s, 'POST', '/keys/api/keys/bulk', { action: 'ban', keys: [await keyFor(who)] }),
  },
  {
    name: 'keys.manage: extend from the list (bulk)',
    allowed: ['owner', 'manager'],
    run: async (who) =>
      asMember(t().app, people[who], s, 'POST', '/keys/api/keys/bulk', { action: 'extend', days: 1, keys: [await keyFor(who)] }),
  },
  {
    name: 'keys.manage: compensate',
    allowed: ['owner', 'manager'],
    run: (who) => asMember(t().app, people[who], s, 'POST', '/keys/api/compensate', { days: 1 }),
  },
  {
    name: 'keys.manage: export',
    allowed: ['owner', 'manager'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/keys/export?format=json'),
  },
  {
    name: 'keys.delete',
    allowed: ['owner', 'manager', 'reseller'],
    run: async (who) => asMember(t().app, people[who], s, 'DELETE', `/keys/api/generated-key?key=${await keyFor(who)}`),
  },
  {
    name: 'lists.manage: keyless',
    allowed: ['owner', 'manager', 'support'],
    run: (who) => asMember(t().app, people[who], s, 'POST', '/keys/api/keyless', { hwid: `hw-keyless-${who}` }),
  },
  {
    name: 'lists.manage: blacklist list',
    allowed: ['owner', 'manager', 'support'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/blacklist'),
  },
  {
    name: 'service.configure: settings',
    allowed: ['owner', 'manager'],
    run: (who) => asMember(t().app, people[who], s, 'PUT', '/keys/api/settings', { hwidResetCooldownFreeHours: 12 }),
  },
  {
    name: 'service.configure: scripts',
    allowed: ['owner', 'manager'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/vss/api/scripts'),
  },
  {
    name: 'service.configure: variables',
    allowed: ['owner', 'manager'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/variables'),
  },
  {
    name: 'service.configure: products',
    allowed: ['owner', 'manager'],
    run: (who) => asMember(t().app, people[who], s, 'GET', '/keys/api/products'),
  },
  {
    name: 'service.own: reveal the service key',
    allowed: ['owner'],
    run: (who) => call(t().app, 'GET', `/api/v1/services/${s.id}/api-key`, { key: people[who].accountKey }),
  },
  {
    name: 'service.own: permissions',
    allowed: ['owner'],
    run: (who) => call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: people[who].accountKey, body: { allowVss: true } }),
  },
];

describe.each(families)('$name', (family) => {
  it.each(WHO)('%s', async (who) => {
    const res = await family.run(who);
    if (family.allowed.includes(who)) {
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    } else {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body).toMatchObject({ code: 'ROLE_FORBIDDEN', error: `Your role on this service (${who}) does not allow this.` });
    }
  });
});

describe('a reseller and keys it did not create', () => {
  it('is 404 on every key route, like another account’s key, and its list holds only its own keys', async () => {
    const { app } = t();
    const r = people.reseller;
    const [generated] = await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 3, note: 'owner-note' });
    const [redeemed] = await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 3 });
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${redeemed}&hwid=hw-owner`)).status).toBe(200);
    const attempts = [
      asMember(app, r, s, 'GET', `/keys/api/generated-key?key=${generated}`),
      asMember(app, r, s, 'GET', `/keys/api/key?key=${redeemed}`),
      asMember(app, r, s, 'GET', `/keys/api/key?hwid=hw-owner`),
      asMember(app, r, s, 'GET', `/keys/api/generated-key?note=owner-note`),
      asMember(app, r, s, 'PUT', '/keys/api/generated-key', { key: generated, note: 'mine now' }),
      asMember(app, r, s, 'PUT', '/keys/api/key', { key: redeemed, status: 'banned' }),
      asMember(app, r, s, 'DELETE', `/keys/api/generated-key?key=${generated}`),
      asMember(app, r, s, 'DELETE', `/keys/api/key?key=${redeemed}`),
      asMember(app, r, s, 'POST', '/keys/reset-hwid', { key: redeemed }),
      asMember(app, r, s, 'GET', `/keys/api/key/binding?key=${redeemed}&type=active`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    const own = await keyFor('reseller');
    // Bulk is not a reseller's (contract §17's table): refused, and another's key is left alone.
    const bulk = await asMember(app, r, s, 'POST', '/keys/api/keys/bulk', { action: 'ban', keys: [own, generated] });
    expect(bulk.status).toBe(403);
    expect(bulk.body.code).toBe('ROLE_FORBIDDEN');
    const untouched = await t().ctx.db.selectFrom('generatedKeys').select('status').where('key', '=', generated!).executeTakeFirstOrThrow();
    expect(untouched.status).toBe('active');
    const list = await asMember(app, r, s, 'GET', '/keys/api/keys?limit=100');
    const keys = list.body.data.items.map((k: { key: string }) => k.key);
    expect(keys).toContain(own);
    expect(keys).not.toContain(generated);
    expect(list.body.data.items.every((k: { createdBy: { accountId: string } }) => k.createdBy.accountId === r.id)).toBe(true);
    // The owner filters by creator.
    const byReseller = await call(app, 'GET', `/api/v1/keys/api/keys?createdBy=${r.id}&limit=100`, { key: s.serviceKey });
    expect(byReseller.body.data.items.map((k: { key: string }) => k.key).sort()).toEqual([...keys].sort());
    expect(byReseller.body.data.items[0].createdBy).toEqual({ accountId: r.id, username: r.username });
  });

  it('deletes its own unredeemed key (one key back), not its own redeemed one (403)', async () => {
    const { app } = t();
    const r = people.reseller;
    const before = (await asMember(app, r, s, 'GET', '/keys/api/reseller')).body.data.keysLeft;
    const key = await keyFor('reseller');
    const spent = (await asMember(app, r, s, 'GET', '/keys/api/reseller')).body.data;
    expect(spent.keysLeft).toBe(before - 1);
    expect((await asMember(app, r, s, 'DELETE', `/keys/api/generated-key?key=${key}`)).status).toBe(200);
    expect((await asMember(app, r, s, 'GET', '/keys/api/reseller')).body.data.keysLeft).toBe(before);

    const sold = await keyFor('reseller');
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${sold}&hwid=hw-buyer`)).status).toBe(200);
    const refused = await asMember(app, r, s, 'DELETE', `/keys/api/key?key=${sold}`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ROLE_FORBIDDEN');
    // Support work on its own sold key is allowed.
    expect((await asMember(app, r, s, 'POST', '/keys/reset-hwid', { key: sold })).status).toBe(200);
    const status = (await asMember(app, r, s, 'GET', '/keys/api/reseller')).body.data;
    expect(status.keysRedeemed).toBeGreaterThanOrEqual(1);
  });
});

// Contract §17's order: the role is checked before the input, also where the body decides the role (a key edit that
// changes the key's terms, a bulk action beyond support work): a support member hears 403, not a 400 about its input.
describe('a finer role check read off the body', () => {
  const refusals: Array<[string, 'PUT' | 'POST', string, Record<string, unknown>]> = [
    ['a terms edit with a bad value', 'PUT', '/keys/api/generated-key', { key: 'x', isPremium: 'very', note: 7 }],
    ['a terms edit of an active key with an unknown field', 'PUT', '/keys/api/key', { key: 'x', expiresAt: 'soon', colour: 'red' }],
    ['a bulk extend without days', 'POST', '/keys/api/keys/bulk', { action: 'extend', keys: 'all of them' }],
  ];
  it.each(refusals)('%s is 403 ROLE_FORBIDDEN for support', async (_name, method, path, body) => {
    const res = await asMember(t().app, people.support, s, method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.code).toBe('ROLE_FORBIDDEN');
  });

  it('leaves a body whose action it cannot read to validation (400), and the manager’s bad input is a 400', async () => {
    // Bulk is never support work (§23), so its role comes before any input.
    const unknown = await asMember(t().app, people.support, s, 'POST', '/keys/api/keys/bulk', { action: 'explode', keys: [] });
    expect(unknown.status).toBe(403);
    const notObject = await asMember(t().app, people.support, s, 'PUT', '/keys/api/key', ['key']);
    expect(notObject.status).toBe(400);
    const manager = await asMember(t().app, people.manager, s, 'PUT', '/keys/api/generated-key', { key: 'x', isPremium: 'very' });
    expect(manager.status).toBe(400);
    expect(manager.body.code).toBe('VALIDATION_ERROR');
  });
});
