import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';

const t = useTestApp();

const routes = [
  ['GET', '', undefined],
  ['PATCH', '', { name: 'stolen' }],
  ['DELETE', '', undefined],
  ['GET', '/api-key', undefined],
  ['POST', '/api-key/regenerate', undefined],
  ['GET', '/permissions', undefined],
  ['PATCH', '/permissions', { allowManageKeys: false }],
  ['GET', '/ip-allowlist', undefined],
  ['PUT', '/ip-allowlist', { entries: ['10.0.0.1'] }],
] as const;

describe("another account's service", () => {
  it.each(routes)(
    '%s /services/:id%s answers 404 (never 403) by id and by identifier, and changes nothing',
    async (method, suffix, body) => {
      const victim = await seedService(t().ctx);
      const attacker = await seedAccount(t().ctx);
      const before = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', victim.id).executeTakeFirstOrThrow();
      for (const ref of [victim.id, victim.identifier]) {
        const res = await call(t().app, method, `/api/v1/services/${ref}${suffix}`, { key: attacker.accountKey, body });
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
        expect(JSON.stringify(res.body)).not.toContain('kws_');
      }
      const after = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', victim.id).executeTakeFirstOrThrow();
      expect(after).toEqual(before);
    },
  );
});

describe('service management authentication', () => {
  it.each(routes)("%s /services/:id%s refuses a service key, even the service's own", async (method, suffix, body) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, method, `/api/v1/services/${s.id}${suffix}`, { key: s.serviceKey, body });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it.each(routes)('%s /services/:id%s refuses a call without a key', async (method, suffix, body) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, method, `/api/v1/services/${s.id}${suffix}`, { body });
    expect(res.status).toBe(401);
  });

  it('refuses to list or create services with a service key', async () => {
    const s = await seedService(t().ctx);
    expect((await call(t().app, 'GET', '/api/v1/services', { key: s.serviceKey })).status).toBe(401);
    expect((await call(t().app, 'POST', '/api/v1/services', { key: s.serviceKey, body: { name: 'x' } })).status).toBe(401);
  });

  it('refuses an account key sent only in the query string', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'GET', `/api/v1/services?apiKey=${a.accountKey}`);
    expect(res.status).toBe(401);
  });
});
