import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV } from '../signin/helpers.ts';

// Guarantee: a mutating request authenticated by a session cookie whose Origin header is present and is not
// BASE_URL's origin (here http://keyward.test) is 403 CSRF_FAILED, whatever its token.
const t = useTestApp(SIGNIN_ENV);

const FOREIGN_ORIGINS = [
  'https://evil.example',
  'null',
  'http://keyward.test.evil.example',
  'https://keyward.test',
  'http://keyward.test:8080',
  'not a url',
];

async function counts(accountId: string, serviceId: string) {
  const db = t().ctx.db;
  const services = await db.selectFrom('services').select('id').where('accountId', '=', accountId).execute();
  const keys = await db.selectFrom('generatedKeys').select('key').where('serviceId', '=', serviceId).execute();
  const account = await db.selectFrom('accounts').select('apiKeyDigest').where('id', '=', accountId).executeTakeFirstOrThrow();
  return { services: services.length, keys: keys.length, apiKeyDigest: account.apiKeyDigest };
}

describe('a cookie-authenticated change from another origin is refused', () => {
  it('answers 403 CSRF_FAILED on a sample of routes, with a valid token, and changes nothing', async () => {
    const s = await seedService(t().ctx);
    const session = await signIn(t().app, s.account);
    const before = await counts(s.account.id, s.id);
    for (const origin of FOREIGN_ORIGINS) {
      const headers = { ...session.headers, origin };
      const attempts = [
        await call(t().app, 'POST', '/api/v1/services', { headers, body: { name: 'From elsewhere' } }),
        await call(t().app, 'POST', '/api/v1/account/api-key/regenerate', { headers }),
        await call(t().app, 'POST', '/api/v1/keys/api/generate', {
          headers: { ...headers, 'x-service-id': s.id },
          body: { expirationType: 'lifetime' },
        }),
        await call(t().app, 'PATCH', `/api/v1/services/${s.id}`, { headers, body: { name: 'Renamed' } }),
        await call(t().app, 'DELETE', `/api/v1/services/${s.id}`, { headers }),
        await call(t().app, 'POST', '/api/v1/auth/logout', { headers }),
      ];
      for (const res of attempts) {
        expect(res.status, origin).toBe(403);
        expect(res.body.code, origin).toBe('CSRF_FAILED');
      }
    }
    expect(await counts(s.account.id, s.id)).toEqual(before);
    // The session itself survived the refused logout.
    expect((await call(t().app, 'GET', '/api/v1/auth/session', { headers: { cookie: session.cookie } })).status).toBe(200);
  });

  it("still accepts the dashboard's own requests (same origin, or no Origin header) and account-key calls from anywhere", async () => {
    const account = await seedAccount(t().ctx);
    const session = await signIn(t().app, account);
    for (const origin of ['http://keyward.test', 'http://KEYWARD.test', 'http://keyward.test:80']) {
      const res = await call(t().app, 'POST', '/api/v1/services', {
        headers: { ...session.headers, origin },
        body: { name: 'Same origin' },
      });
      expect(res.status, origin).toBe(201);
    }
    expect((await call(t().app, 'POST', '/api/v1/services', { headers: session.headers, body: { name: 'No origin' } })).status).toBe(201);
    const byKey = await call(t().app, 'POST', '/api/v1/services', {
      key: account.accountKey,
      headers: { origin: 'https://evil.example' },
      body: { name: 'By key' },
    });
    expect(byKey.status).toBe(201);
    // Reads are not changes: a foreign Origin on a GET is answered.
    expect(
      (await call(t().app, 'GET', '/api/v1/services', { headers: { cookie: session.cookie, origin: 'https://evil.example' } })).status,
    ).toBe(200);
  });
});
