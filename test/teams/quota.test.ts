import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { DAY_MS } from '../helpers/records.ts';
import { addMember, asMember } from './team-helpers.ts';

// Contract §17: a reseller's quota is spent in the transaction that creates the keys, exactly, on any number of
// instances; §20: roles and membership are read from the database on every instance.
const t = useTestApp();

const generatedCount = async (serviceId: string) =>
  Number(
    (
      await t()
        .ctx.db.selectFrom('generatedKeys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('serviceId', '=', serviceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('reseller quota', () => {
  it('QUOTA_EXCEEDED names what is short and creates nothing', async () => {
    const { app, ctx, clock } = t();
    const s = await seedService(ctx);
    const r = await addMember(app, ctx, s, 'reseller', { keysLeft: 2, maxDays: 30 });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ expirationType: 'byDays', days: 30, count: 3 }, /3 keys asked, 2 left\. Ask the service owner for more\.$/],
      [{ expirationType: 'lifetime' }, /lifetime keys are not allowed/],
      [{ expirationType: 'byDays', days: 31 }, /at most 30 days, not 31/],
      [{ expirationType: 'afterRedeem', days: 60 }, /at most 30 days, not 60/],
      [{ expirationType: 'byDate', expiresAt: clock.now + 45 * DAY_MS }, /at most 30 days, not 45/],
    ];
    for (const [body, words] of cases) {
      const res = await asMember(app, r, s, 'POST', '/keys/api/generate', body);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.code).toBe('QUOTA_EXCEEDED');
      expect(res.body.error).toMatch(words);
    }
    expect(await generatedCount(s.id)).toBe(0);
    const ok = await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'byDays', days: 30, count: 2 });
    expect(ok.status).toBe(201);
    expect(ok.body.data.keys[0].createdBy).toEqual({ accountId: r.id, username: r.username });
    const status = await asMember(app, r, s, 'GET', '/keys/api/reseller');
    expect(status.body.data).toEqual({
      keysLeft: 0,
      maxDays: 30,
      allowLifetime: false,
      maxHwids: 1,
      allowNoHwidValidation: false,
      allowPremium: false,
      maxSessions: null,
      keysCreated: 2,
      keysRedeemed: 0,
    });
    // Input errors stay 400 (after the role check).
    expect((await asMember(app, r, s, 'POST', '/keys/api/generate', { expirationType: 'byDays', days: 'x' })).status).toBe(400);
  });

  it('20 concurrent generates of 3 against keysLeft 10 on two instances: exactly 3 succeed, keysLeft 1', async () => {
    const { app, ctx } = t();
    const other = await anotherInstance(t());
    try {
      const s = await seedService(ctx);
      const r = await addMember(app, ctx, s, 'reseller', { keysLeft: 10 });
      const body = { expirationType: 'byDays', days: 7, count: 3 };
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => asMember(i % 2 === 0 ? app : other, r, s, 'POST', '/keys/api/generate', body)),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((x) => x === 201)).toHaveLength(3);
      expect(statuses.filter((x) => x === 403)).toHaveLength(17);
      for (const a of answers.filter((x) => x.status === 403)) expect(a.body.code).toBe('QUOTA_EXCEEDED');
      expect((await asMember(other, r, s, 'GET', '/keys/api/reseller')).body.data.keysLeft).toBe(1);
      expect(await generatedCount(s.id)).toBe(9);
    } finally {
      await other.close();
    }
  });
});

describe('changes count on the next request on every instance', () => {
  it('a member removed on instance A is refused on instance B; a role changed on A counts on B', async () => {
    const { app, ctx } = t();
    const other = await anotherInstance(t());
    try {
      const s = await seedService(ctx);
      const m = await addMember(app, ctx, s, 'manager');
      expect((await asMember(other, m, s, 'PUT', '/keys/api/settings', { hwidResetCooldownFreeHours: 2 })).status).toBe(200);
      const demoted = await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${m.id}`, {
        key: s.account.accountKey,
        body: { role: 'support' },
      });
      expect(demoted.status).toBe(200);
      const refused = await asMember(other, m, s, 'PUT', '/keys/api/settings', { hwidResetCooldownFreeHours: 3 });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('ROLE_FORBIDDEN');
      expect((await asMember(other, m, s, 'GET', '/keys/api/keys')).status).toBe(200);
      expect((await call(app, 'DELETE', `/api/v1/services/${s.id}/members/${m.id}`, { key: s.account.accountKey })).status).toBe(200);
      const gone = await asMember(other, m, s, 'GET', '/keys/api/keys');
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('NOT_FOUND');
    } finally {
      await other.close();
    }
  });
});
