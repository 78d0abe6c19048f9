import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededAccount, type SeededService } from '../helpers/seed.ts';
import { redeem } from '../helpers/records.ts';
import { LuarmorClient } from '../luarmor/luarmor-client.ts';
import { addMember, asMember, type Quota } from './team-helpers.ts';

// Contract §25: the reseller key policy (maxHwids, allowNoHwidValidation, allowPremium, maxSessions), set by the owner
// on the invite or the member, holds through every door a reseller makes or edits a key by, in one check
// (services/quota.ts): over it is 403 QUOTA_EXCEEDED naming the field in a seller's words, and nothing is made.
const t = useTestApp();

type Policy = Quota & { maxHwids?: number; allowNoHwidValidation?: boolean; allowPremium?: boolean; maxSessions?: number | null };

async function resellerWith(policy: Policy): Promise<{ s: SeededService; r: SeededAccount }> {
  const s = await seedService(t().ctx);
  const r = await addMember(t().app, t().ctx, s, 'reseller', { keysLeft: 20, allowLifetime: true, ...policy } as Quota);
  return { s, r };
}

const keysOf = (serviceId: string) =>
  Promise.all([
    t().ctx.db.selectFrom('generatedKeys').selectAll().where('serviceId', '=', serviceId).execute(),
    t().ctx.db.selectFrom('activeKeys').selectAll().where('serviceId', '=', serviceId).execute(),
  ]).then(([g, a]) => [...g, ...a]);

const keysLeft = async (s: SeededService, r: SeededAccount) =>
  (
    await t()
      .ctx.db.selectFrom('serviceMembers')
      .select('keysLeft')
      .where('serviceId', '=', s.id)
      .where('accountId', '=', r.id)
      .executeTakeFirstOrThrow()
  ).keysLeft;

/** The four fields, each over the narrowest policy, with the words its refusal must carry. */
const OVER: [Record<string, unknown>, string, RegExp][] = [
  [{ maxHwids: 2 }, 'maxHwids', /^Your reseller terms allow at most 1 device \(HWID\) per key, not 2; ask the service owner for more\.$/],
  [{ noHwidValidation: true }, 'noHwidValidation', /do not allow keys without the HWID check; ask the service owner for more\./],
  [{ isPremium: true }, 'isPremium', /do not allow premium keys; ask the service owner for more\./],
  [{ maxSessions: 3 }, 'maxSessions', /allow at most 2 devices running at once per key, not 3; ask the service owner/],
  [{ maxSessions: 0 }, 'maxSessions', /allow at most 2 devices running at once per key, not no limit;/],
];

describe('the policy on the invite and the member', () => {
  it('is set on the invite, carried to the member on accept, listed, and changed by the owner’s PATCH', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const quota = { keysLeft: 4, maxHwids: 3, allowNoHwidValidation: true, allowPremium: false, maxSessions: 5 };
    const invite = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, {
      key: s.account.accountKey,
      body: { role: 'reseller', quota },
    });
    expect(invite.status, JSON.stringify(invite.body)).toBe(201);
    expect(invite.body.data.quota).toEqual({ ...quota, maxDays: null, allowLifetime: false });
    const open = await call(app, 'GET', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey });
    expect(open.body.data.items[0].quota).toEqual({ ...quota, maxDays: null, allowLifetime: false });

    const r = await addMember(app, ctx, s, 'reseller', quota as Quota);
    const patched = await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${r.id}`, {
      key: s.account.accountKey,
      body: { quota: { allowPremium: true, maxSessions: null } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.quota).toEqual({ ...quota, maxDays: null, allowLifetime: false, allowPremium: true, maxSessions: null });
    const listed = await call(app, 'GET', `/api/v1/services/${s.id}/members`, { key: s.account.accountKey });
    expect(listed.body.data.items.find((m: { accountId: string }) => m.accountId === r.id).quota).toMatchObject({ allowPremium: true });
    const own = await asMember(app, r, s, 'GET', '/keys/api/reseller');
    expect(own.body.data).toMatchObject({ maxHwids: 3, allowNoHwidValidation: true, allowPremium: true, maxSessions: null });
  });

  it('refuses values out of range, and a policy on another role, with 400 naming the field', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const bad: [Record<string, unknown>, string][] = [
      [{ role: 'reseller', quota: { maxHwids: 0 } }, 'maxHwids'],
      [{ role: 'reseller', quota: { maxHwids: 101 } }, 'maxHwids'],
      [{ role: 'reseller', quota: { maxSessions: 0 } }, 'maxSessions'],
      [{ role: 'reseller', quota: { allowPremium: 'yes' } }, 'allowPremium'],
      [{ role: 'support', quota: { maxHwids: 2 } }, 'quota'],
    ];
    for (const [body, field] of bad) {
      const res = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.field).toContain(field);
    }
  });
});

describe('generate (dashboard and API)', () => {
  it('refuses each term over the policy, naming it, and makes nothing; within it, makes the key with the policy’s session limit', async () => {
    const { app } = t();
    const { s, r } = await resellerWith({ maxSessions: 2 });
    for (const [terms, field, words] of OVER) {
      const res = await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime', ...terms });
      expect(res.status, JSON.stringify(terms)).toBe(403);
      expect(res.body).toMatchObject({ code: 'QUOTA_EXCEEDED', field });
      expect(res.body.error).toMatch(words);
    }
    expect(await keysOf(s.id)).toHaveLength(0);
    expect(await keysLeft(s, r)).toBe(20);

    // No maxSessions asked: the key gets the policy's limit, not "no limit".
    const ok = await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime', maxHwids: 1 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.data.keys[0]).toMatchObject({ maxHwids: 1, maxSessions: 2, isPremium: false, noHwidValidation: false });
    const fewer = await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime', maxSessions: 1 });
    expect(fewer.body.data.keys[0].maxSessions).toBe(1);
  });

  it('allows what the owner allowed', async () => {
    const { app } = t();
    const { s, r } = await resellerWith({ maxHwids: 3, allowNoHwidValidation: true, allowPremium: true });
    const res = await asMember(app, r, s, 'POST', '/keys/api/generate', {
      expirationType: 'lifetime',
      maxHwids: 3,
      noHwidValidation: true,
      isPremium: true,
      maxSessions: 0,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.keys[0]).toMatchObject({ maxHwids: 3, noHwidValidation: true, isPremium: true, maxSessions: 0 });
    // The owner's and a manager's generates know no policy.
    const owner = await call(app, 'POST', '/api/v1/keys/api/generate', {
      key: s.serviceKey,
      body: { expirationType: 'lifetime', maxHwids: 50 },
    });
    expect(owner.status).toBe(201);
  });

  it('counts right and says what to do: "1 key asked, 0 left. Ask the service owner for more."', async () => {
    const { app } = t();
    const { s, r } = await resellerWith({ keysLeft: 1 });
    const two = await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime', count: 2 });
    expect(two.body.error).toBe('Your reseller quota does not allow this: 2 keys asked, 1 left. Ask the service owner for more.');
    expect((await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime' })).status).toBe(201);
    const one = await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime' });
    expect(one.status).toBe(403);
    expect(one.body).toMatchObject({ code: 'QUOTA_EXCEEDED', field: 'count' });
    expect(one.body.error).toBe('Your reseller quota does not allow this: 1 key asked, 0 left. Ask the service owner for more.');
  });
});

describe('key edit', () => {
  it('a reseller edits the four terms of its own keys within the policy, and is refused beyond it', async () => {
    const { app } = t();
    const { s, r } = await resellerWith({ maxHwids: 2, maxSessions: 2 });
    const made = await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime', count: 2 });
    const [generated, active] = made.body.data.keys.map((k: { key: string }) => k.key) as [string, string];
    await redeem(app, s.id, active, 'pc-1');
    const edits: [string, string][] = [
      ['/keys/api/generated-key', generated],
      ['/keys/api/key', active],
    ];
    for (const [path, key] of edits) {
      for (const [terms, field, words] of OVER.filter(([terms]) => !('maxHwids' in terms))) {
        const res = await asMember(app, r, s, 'PUT', path, { key, ...terms });
        expect(res.status, `${path} ${JSON.stringify(terms)}`).toBe(403);
        expect(res.body).toMatchObject({ code: 'QUOTA_EXCEEDED', field });
        expect(res.body.error).toMatch(words);
      }
      const hwids = await asMember(app, r, s, 'PUT', path, { key, maxHwids: 3 });
      expect(hwids.status).toBe(403);
      expect(hwids.body.error).toBe('Your reseller terms allow at most 2 devices (HWID) per key, not 3; ask the service owner for more.');
      const within = await asMember(app, r, s, 'PUT', path, { key, maxHwids: 2, maxSessions: 1, note: 'mine' });
      expect(within.status, JSON.stringify(within.body)).toBe(200);
      expect(within.body.data).toMatchObject({ maxHwids: 2, maxSessions: 1, note: 'mine', isPremium: false, noHwidValidation: false });
      // Its other limits of §17 stand: the expiry is the owner's and managers'.
      const expiry = await asMember(app, r, s, 'PUT', path, { key, maxHwids: 1, expiresAt: Date.now() + 86_400_000 * 400 });
      expect(expiry.status).toBe(403);
      expect(expiry.body.code).toBe('ROLE_FORBIDDEN');
    }
    const rows = await keysOf(s.id);
    expect(rows.every((k) => k.maxHwids === 2 && k.maxSessions === 1 && k.isPremium === 0 && k.noHwidValidation === 0)).toBe(true);

    // The owner widens the policy: the same edit passes on the reseller's next request.
    await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${r.id}`, {
      key: s.account.accountKey,
      body: { quota: { allowPremium: true } },
    });
    expect((await asMember(app, r, s, 'PUT', '/keys/api/generated-key', { key: generated, isPremium: true })).status).toBe(200);
  });

  it('support staff still may not change a key’s terms', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const support = await addMember(app, ctx, s, 'support');
    const [key] = (await call(app, 'POST', '/api/v1/keys/api/generate', { key: s.serviceKey, body: { expirationType: 'lifetime' } })).body
      .data.keys;
    const res = await asMember(app, support, s, 'PUT', '/keys/api/generated-key', { key: key.key, maxHwids: 1 });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ROLE_FORBIDDEN');
  });
});

describe('/luarmor create with the reseller’s account key', () => {
  it('makes the key within the policy (its session limit) and spends the quota through the same check', async () => {
    const { app } = t();
    const { s, r } = await resellerWith({ keysLeft: 1, maxSessions: 2, allowLifetime: false, maxDays: 30 });
    const client = new LuarmorClient(() => app, r.accountKey);
    const made = await client.createUser(s.id, { key_days: 10 });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const [row] = await keysOf(s.id);
    expect(row).toMatchObject({ key: made.body.user_key, maxSessions: 2, maxHwids: 1, isPremium: 0, noHwidValidation: 0, createdBy: r.id });
    // Lifetime is not in the policy; then the quota is spent: the same sentences as the dashboard's.
    const lifetime = await client.createUser(s.id, {});
    expect(lifetime.status).toBe(403);
    expect(lifetime.body.message).toMatch(/lifetime keys are not allowed/);
    const spent = await client.createUser(s.id, { key_days: 10 });
    expect(spent.status).toBe(403);
    expect(spent.body.message).toBe('Your reseller quota does not allow this: 1 key asked, 0 left. Ask the service owner for more.');
    // Bound at once to an identifier: the active key carries the policy's limit too.
    await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${r.id}`, { key: s.account.accountKey, body: { quota: { keysLeft: 1 } } });
    const bound = await client.createUser(s.id, { identifier: 'hw-bound-1', auth_expire: Math.floor(t().clock.now / 1000) + 86_400 });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    const active = await t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', bound.body.user_key).executeTakeFirstOrThrow();
    expect(active).toMatchObject({ maxSessions: 2, maxHwids: 1, noHwidValidation: 0, isPremium: 0 });
  });
});

describe('concurrent generates on two instances', () => {
  it('never exceed the policy nor the quota', async () => {
    const { app } = t();
    const other = await anotherInstance(t());
    try {
      const { s, r } = await resellerWith({ keysLeft: 10, maxHwids: 2, maxSessions: 3 });
      const bodies = [
        { expirationType: 'lifetime', count: 3, maxHwids: 2 },
        { expirationType: 'lifetime', count: 3, maxHwids: 3 },
        { expirationType: 'lifetime', count: 3, isPremium: true },
        { expirationType: 'lifetime', count: 3, maxSessions: 0 },
        { expirationType: 'lifetime', count: 3 },
      ];
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => asMember(i % 2 === 0 ? app : other, r, s, 'POST', '/keys/api/generate', bodies[i % 5])),
      );
      const ok = answers.filter((a) => a.status === 201);
      expect(ok).toHaveLength(3);
      expect(answers.every((a) => a.status === 201 || a.body.code === 'QUOTA_EXCEEDED')).toBe(true);
      const rows = await keysOf(s.id);
      expect(rows).toHaveLength(9);
      expect(rows.every((k) => k.maxHwids <= 2 && k.maxSessions >= 1 && k.maxSessions <= 3 && k.isPremium === 0)).toBe(true);
      expect(await keysLeft(s, r)).toBe(1);
    } finally {
      await other.close();
    }
  });
});
