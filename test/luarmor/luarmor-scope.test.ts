// Contract §27: an unban token lifts only the ban that made it, and a reseller's /luarmor calls never reach another's key.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { redeem } from '../helpers/records.ts';
import { addMember, asMember } from '../teams/team-helpers.ts';
import { LuarmorClient } from './luarmor-client.ts';

const t = useTestApp();
const client = (key: string | null) => new LuarmorClient(() => t().app, key);
const statusOf = async (serviceKey: string, key: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: serviceKey })).body.data.keys[0].status as string;

describe('unban tokens (§16.2, §27)', () => {
  it("lifts only the ban that made it: a reseller's token leaves the owner's ban alone", async () => {
    const s = await seedService(t().ctx);
    const reseller = await addMember(t().app, t().ctx, s, 'reseller', { keysLeft: 5, allowLifetime: true });
    const [ownerKey] = await generateKeys(t().app, s.serviceKey);
    await redeem(t().app, s.id, ownerKey!, 'owner-pc');
    const made = await asMember(t().app, reseller, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime' });
    const resellerKey = made.body.data.keys[0].key as string;
    await redeem(t().app, s.id, resellerKey, 'reseller-pc');

    const ownerBan = await client(s.serviceKey).blacklist(s.id, ownerKey!, { ban_reason: 'owner' });
    const resellerBan = await client(reseller.accountKey).blacklist(s.id, resellerKey, { ban_reason: 'reseller' });
    expect(resellerBan.status).toBe(200);
    // The reseller cannot ban (nor learn the token of) the owner's key.
    expect(await client(reseller.accountKey).blacklist(s.id, ownerKey!)).toMatchObject({ status: 404, body: { message: 'Key not found' } });

    expect((await client(null).unban(s.id, resellerBan.body.unban_token)).status).toBe(200);
    expect(await statusOf(s.serviceKey, resellerKey)).toBe('active');
    expect(await statusOf(s.serviceKey, ownerKey!)).toBe('banned');

    // A ban made since replaces the token: the old one lifts nothing.
    const again = await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key: ownerKey, status: 'banned' } });
    expect(again.status).toBe(200);
    expect((await client(null).unban(s.id, ownerBan.body.unban_token)).status).toBe(404);
    expect(await statusOf(s.serviceKey, ownerKey!)).toBe('banned');
  });

  it("counts only a reseller's own keys in its stats", async () => {
    const s = await seedService(t().ctx);
    const reseller = await addMember(t().app, t().ctx, s, 'reseller', { keysLeft: 5, allowLifetime: true });
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 3 });
    await asMember(t().app, reseller, s, 'POST', '/keys/api/generate', { expirationType: 'lifetime', count: 2 });
    expect((await client(reseller.accountKey).keyStats()).body.stats.users).toBe(2);
    expect((await client(s.account.accountKey).keyStats()).body.stats.users).toBe(5);
  });

  it('records an unban by link as that door, not as a buyer (§27)', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    await redeem(t().app, s.id, key!, 'pc-1');
    const ban = await client(s.serviceKey).blacklist(s.id, key!, { ban_reason: 'chargeback' });
    expect((await client(null).unban(s.id, ban.body.unban_token)).status).toBe(200);
    const edits = await t()
      .ctx.db.selectFrom('auditLog')
      .select('details')
      .where('serviceId', '=', s.id)
      .where('action', '=', 'key.update')
      .where('target', '=', key!)
      .execute();
    const lifted = edits.map((e) => JSON.parse(e.details) as Record<string, unknown>).filter((d) => d.status === 'active');
    expect(lifted).toEqual([expect.objectContaining({ via: 'unban-link' })]);
  });
});
