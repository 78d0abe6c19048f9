import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedAccount, seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV, signIn } from '../signin/helpers.ts';

// The dashboard holds no API key: a signed-in session acts on the owner's services, like the account key.
const t = useTestApp(SIGNIN_ENV);

describe('service routes with a signed-in session', () => {
  it('reads the keys of an own service named by X-Service-Id (id or identifier)', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    const session = await signIn(t().app, s.account);
    for (const ref of [s.id, s.identifier]) {
      const res = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, {
        headers: { cookie: session.cookie, 'x-service-id': ref },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.keys.map((k: { key: string }) => k.key)).toEqual([key]);
    }
  });

  it('generates keys with the CSRF token, and the keys land in that service', async () => {
    const s = await seedService(t().ctx);
    const session = await signIn(t().app, s.account);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/generate', {
      headers: { ...session.headers, 'x-service-id': s.id },
      body: { expirationType: 'lifetime', count: 2 },
    });
    expect(res.status).toBe(201);
    const rows = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
    expect(rows).toHaveLength(2);
  });

  it('refuses a mutation without the CSRF token and changes nothing', async () => {
    const s = await seedService(t().ctx);
    const session = await signIn(t().app, s.account);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/generate', {
      headers: { cookie: session.cookie, 'x-service-id': s.id },
      body: { expirationType: 'lifetime', count: 1 },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CSRF_FAILED');
    const rows = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
    expect(rows).toHaveLength(0);
  });

  it('needs X-Service-Id', async () => {
    const s = await seedService(t().ctx);
    const session = await signIn(t().app, s.account);
    const res = await call(t().app, 'GET', '/api/v1/keys/api/generated-key?key=abcdefgh', { headers: { cookie: session.cookie } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('SERVICE_ID_REQUIRED');
  });

  it("answers 404 for another account's service, as for an unknown one", async () => {
    const other = await seedService(t().ctx);
    const me = await seedAccount(t().ctx);
    const session = await signIn(t().app, me);
    for (const ref of [other.id, other.identifier, 'no-such-service']) {
      const res = await call(t().app, 'GET', '/api/v1/keys/api/generated-key?key=abcdefgh', {
        headers: { cookie: session.cookie, 'x-service-id': ref },
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('answers 401 without a session or key, and after sign-out', async () => {
    const s = await seedService(t().ctx);
    const session = await signIn(t().app, s.account);
    expect((await call(t().app, 'GET', '/api/v1/keys/api/generated-key?key=abcdefgh', { headers: { 'x-service-id': s.id } })).status).toBe(
      401,
    );
    await call(t().app, 'POST', '/api/v1/auth/logout', { headers: session.headers });
    const res = await call(t().app, 'GET', '/api/v1/keys/api/generated-key?key=abcdefgh', {
      headers: { cookie: session.cookie, 'x-service-id': s.id },
    });
    expect(res.status).toBe(401);
  });
});
