import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { DAY_MS } from '../helpers/records.ts';
import { addMember, asMember } from './team-helpers.ts';

// Contract §17: invites (single use, 7 days, a link) and members (list, change, remove, leave).
const t = useTestApp();
// Contract §25: a reseller invited without a key policy gets the narrowest one.
const DEFAULT_POLICY = { maxHwids: 1, allowNoHwidValidation: false, allowPremium: false, maxSessions: null };

describe('invites', () => {
  it('an owner invites, the invitee accepts once, and the service lists it with its role', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const res = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body: { role: 'support' } });
    expect(res.status).toBe(201);
    const { code, url, role, expiresAt } = res.body.data;
    expect(url).toBe(`http://keyward.test/invite/${code}`);
    expect(role).toBe('support');
    expect(expiresAt).toBe(new Date(t().clock.now + 7 * DAY_MS).toISOString());
    const listed = await call(app, 'GET', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey });
    expect(listed.body.data.items.map((i: { code: string }) => i.code)).toEqual([code]);

    const member = await seedAccount(ctx);
    const accepted = await call(app, 'POST', `/api/v1/invites/${code}/accept`, { key: member.accountKey });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.service).toMatchObject({ id: s.id, role: 'support' });
    const services = await call(app, 'GET', '/api/v1/services', { key: member.accountKey });
    expect(services.body.data.services).toEqual([expect.objectContaining({ id: s.id, role: 'support' })]);
    const owners = await call(app, 'GET', '/api/v1/services', { key: s.account.accountKey });
    expect(owners.body.data.services).toEqual([expect.objectContaining({ id: s.id, role: 'owner' })]);

    // Single use: a second account finds it gone.
    const other = await seedAccount(ctx);
    const again = await call(app, 'POST', `/api/v1/invites/${code}/accept`, { key: other.accountKey });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('NOT_FOUND');
    expect((await call(app, 'GET', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey })).body.data.items).toEqual([]);
  });

  it('an unknown or expired code is 404; the own service or an existing membership is 409 and leaves the invite usable', async () => {
    const { app, ctx, clock } = t();
    const s = await seedService(ctx);
    const invite = async () =>
      (await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body: { role: 'manager' } })).body.data
        .code;
    expect((await call(app, 'POST', '/api/v1/invites/nosuchcode/accept', { key: s.account.accountKey })).status).toBe(404);
    const own = await invite();
    const mine = await call(app, 'POST', `/api/v1/invites/${own}/accept`, { key: s.account.accountKey });
    expect(mine.status).toBe(409);
    expect(mine.body.code).toBe('CONFLICT');
    const member = await addMember(app, ctx, s, 'support');
    const twice = await call(app, 'POST', `/api/v1/invites/${own}/accept`, { key: member.accountKey });
    expect(twice.status).toBe(409);
    // Still usable by someone else.
    const fresh = await seedAccount(ctx);
    expect((await call(app, 'POST', `/api/v1/invites/${own}/accept`, { key: fresh.accountKey })).status).toBe(200);

    const late = await invite();
    clock.advance(7 * DAY_MS);
    const expired = await call(app, 'POST', `/api/v1/invites/${late}/accept`, { key: (await seedAccount(ctx)).accountKey });
    expect(expired.status).toBe(404);
  });

  it('a quota is for resellers only; a reseller without one starts at 0 keys', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const bad = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, {
      key: s.account.accountKey,
      body: { role: 'support', quota: { keysLeft: 5 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('quota');
    const reseller = await addMember(app, ctx, s, 'reseller');
    const status = await asMember(app, reseller, s, 'GET', '/keys/api/reseller');
    expect(status.body.data).toEqual({
      keysLeft: 0,
      maxDays: null,
      allowLifetime: false,
      ...DEFAULT_POLICY,
      keysCreated: 0,
      keysRedeemed: 0,
    });
  });

  it('only the owner invites or withdraws: a manager is 403 ROLE_FORBIDDEN, a stranger 404', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const manager = await addMember(app, ctx, s, 'manager');
    const res = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: manager.accountKey, body: { role: 'support' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'ROLE_FORBIDDEN', error: 'Your role on this service (manager) does not allow this.' });
    const stranger = await seedAccount(ctx);
    expect(
      (await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: stranger.accountKey, body: { role: 'support' } })).status,
    ).toBe(404);
    const code = (await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body: { role: 'support' } }))
      .body.data.code;
    expect((await call(app, 'DELETE', `/api/v1/services/${s.id}/invites/${code}`, { key: manager.accountKey })).status).toBe(403);
    expect((await call(app, 'DELETE', `/api/v1/services/${s.id}/invites/${code}`, { key: s.account.accountKey })).status).toBe(200);
    expect((await call(app, 'POST', `/api/v1/invites/${code}/accept`, { key: stranger.accountKey })).status).toBe(404);
  });
});

describe('members', () => {
  it('lists members with role, quota and keys created and redeemed; the owner changes and removes them; a member leaves', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const reseller = await addMember(app, ctx, s, 'reseller', { keysLeft: 5, maxDays: 30 });
    const support = await addMember(app, ctx, s, 'support');
    const made = await asMember(app, reseller, s, 'POST', '/keys/api/generate', { expirationType: 'byDays', days: 30, count: 2 });
    expect(made.status).toBe(201);
    const key = made.body.data.keys[0].key;
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=hw-1`)).status).toBe(200);

    const manager = await addMember(app, ctx, s, 'manager');
    const list = await call(app, 'GET', `/api/v1/services/${s.id}/members`, { key: manager.accountKey });
    expect(list.status).toBe(200);
    expect(list.body.data.items).toHaveLength(3);
    expect(list.body.data.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          accountId: reseller.id,
          username: reseller.username,
          role: 'reseller',
          quota: { keysLeft: 3, maxDays: 30, allowLifetime: false, ...DEFAULT_POLICY },
          keysCreated: 2,
          keysRedeemed: 1,
        }),
        expect.objectContaining({ accountId: support.id, role: 'support', quota: null, keysCreated: 0, keysRedeemed: 0 }),
        expect.objectContaining({ accountId: manager.id, role: 'manager', quota: null }),
      ]),
    );
    expect((await call(app, 'GET', `/api/v1/services/${s.id}/members`, { key: support.accountKey })).status).toBe(403);

    // Support becomes a reseller: it starts with no keys; a partial quota change keeps the rest.
    const changed = await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${support.id}`, {
      key: s.account.accountKey,
      body: { role: 'reseller' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ role: 'reseller', quota: { keysLeft: 0, maxDays: null, allowLifetime: false } });
    const topped = await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${reseller.id}`, {
      key: s.account.accountKey,
      body: { quota: { keysLeft: 10 } },
    });
    expect(topped.body.data.quota).toEqual({ keysLeft: 10, maxDays: 30, allowLifetime: false, ...DEFAULT_POLICY });
    expect(
      (await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${reseller.id}`, { key: manager.accountKey, body: { role: 'support' } }))
        .status,
    ).toBe(403);

    // Leave, remove: each answered as a stranger from the next request.
    expect((await call(app, 'DELETE', `/api/v1/services/${s.id}/members/me`, { key: manager.accountKey })).status).toBe(200);
    expect((await asMember(app, manager, s, 'GET', '/keys/api/keys')).status).toBe(404);
    expect((await call(app, 'DELETE', `/api/v1/services/${s.id}/members/me`, { key: s.account.accountKey })).status).toBe(409);
    expect((await call(app, 'DELETE', `/api/v1/services/${s.id}/members/${support.id}`, { key: s.account.accountKey })).status).toBe(200);
    expect((await asMember(app, support, s, 'GET', '/keys/api/keys')).status).toBe(404);
    expect((await call(app, 'GET', '/api/v1/services', { key: support.accountKey })).body.data.services).toEqual([]);
  });

  it('audit entries name the member, and ?actor= lists what one member did', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const support = await addMember(app, ctx, s, 'support');
    t().clock.advance(1000); // entries of one millisecond have no order between them
    await call(app, 'POST', '/api/v1/keys/api/generate', { key: s.serviceKey, body: { expirationType: 'lifetime' } });
    const banned = await call(app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'hw-x' } });
    expect(banned.status).toBe(201);
    const added = await asMember(app, support, s, 'POST', '/keys/api/blacklist', { hwid: 'hw-bad', reason: 'chargeback' });
    expect(added.status).toBe(201);
    const mine = await call(app, 'GET', `/api/v1/keys/api/audit?actor=${support.id}`, { key: s.serviceKey });
    expect(mine.status).toBe(200);
    // Its joining and its blacklist entry: nothing the owner's service key did.
    expect(mine.body.data.items.map((e: { action: string }) => e.action)).toEqual(['blacklist.add', 'member.join']);
    expect(mine.body.data.items[0]).toMatchObject({
      target: 'hw-bad',
      actor: { kind: 'account-key', accountId: support.id, username: support.username },
    });
  });
});
