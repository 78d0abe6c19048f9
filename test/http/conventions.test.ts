import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';

const t = useTestApp();

const ERROR_KEYS = ['code', 'error', 'field', 'requestId', 'retryAfter', 'success'];

function expectCleanError(body: Record<string, unknown>) {
  expect(body.success).toBe(false);
  expect(typeof body.error).toBe('string');
  expect(typeof body.code).toBe('string');
  for (const k of Object.keys(body)) expect(ERROR_KEYS).toContain(k);
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bat .+\(.*:\d+:\d+\)/);
  expect(text).not.toMatch(/\.ts\b|\.js\b|node_modules|\/src\//);
  expect(text).not.toMatch(/SELECT|INSERT|sqlite|postgres/i);
}

describe('request bodies', () => {
  it('answers malformed JSON with 400, never 500', async () => {
    const a = await seedAccount(t().ctx);
    for (const body of ['{', '{"name": }', "{'name': 'x'}", '{"name":"x"}}', 'nul']) {
      const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expectCleanError(res.body);
    }
  });

  it('answers a body over 1 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const a = await seedAccount(t().ctx);
    const body = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    expectCleanError(res.body);
  });

  it('accepts a body just under 1 MB up to schema validation', async () => {
    const s = await seedService(t().ctx);
    const body = JSON.stringify({ hwid: 'pc', reason: 'x'.repeat(1000 * 1000) });
    const res = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('reason');
  });

  it('refuses an array, a string, a number and null as the body of a mutating route', async () => {
    const a = await seedAccount(t().ctx);
    for (const body of ['[]', '[{"name":"x"}]', '"name"', '42', 'null']) {
      const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect(await t().ctx.db.selectFrom('services').select('id').where('accountId', '=', a.id).execute()).toHaveLength(0);
  });

  it('refuses a body that is not JSON', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', {
      key: a.accountKey,
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectCleanError(res.body);
  });

  it('refuses __proto__ keys with a 400 naming them, polluting nothing (contract §22)', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: '{"name":"x","__proto__":{"admin":true}}' });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('__proto__');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('X-Request-Id', () => {
  it('is on a success, a client error, an auth failure and an unknown route, and matches the error body', async () => {
    const s = await seedService(t().ctx);
    const responses = [
      await call(t().app, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey }),
      await call(t().app, 'GET', '/api/v1/keys/api/blacklist?limit=abc', { key: s.serviceKey }),
      await call(t().app, 'GET', '/api/v1/keys/api/service/info'),
      await call(t().app, 'GET', '/api/v1/no/such/route'),
      await call(t().app, 'GET', '/healthz'),
    ];
    const ids = new Set<string>();
    for (const res of responses) {
      const id = res.headers['x-request-id'];
      expect(typeof id).toBe('string');
      expect((id as string).length).toBeGreaterThan(0);
      ids.add(id as string);
      if (res.status >= 400) expect(res.body.requestId).toBe(id);
    }
    expect(ids.size).toBe(responses.length);
  });
});

describe('unknown routes', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const)('%s on an unknown route answers the 404 envelope', async (method) => {
    const res = await call(t().app, method, '/api/v1/definitely/not/here?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expectCleanError(res.body);
  });

  it('answers 404 for a wrong method on a known path', async () => {
    const res = await call(t().app, 'PATCH', '/api/v1/keys/api/blacklist/check');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('error bodies', () => {
  it('carry no stack traces, SQL or file paths on validation, auth, conflict and not-found errors', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'dup' } });
    const errors = [
      await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'dup' } }),
      await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 3 } }),
      await call(t().app, 'GET', '/api/v1/keys/api/keyless?hwid=none', { key: s.serviceKey }),
      await call(t().app, 'GET', '/api/v1/keys/api/keyless?hwid=none', { key: 'kws_bad' }),
      await call(t().app, 'POST', '/api/v1/services', { key: s.account.accountKey, body: { name: 'x', identifier: s.identifier } }),
    ];
    expect(errors.map((e) => e.status)).toEqual([409, 400, 404, 401, 409]);
    for (const e of errors) {
      expectCleanError(e.body);
      expect(e.headers['content-type']).toMatch(/^application\/json/);
    }
  });
});

describe('operations routes', () => {
  it('GET /healthz answers 200 { status: ok } when the database answers', async () => {
    const res = await call(t().app, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /openapi.json is an OpenAPI 3 document listing the routes', async () => {
    const res = await call(t().app, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(String(res.body.openapi)).toMatch(/^3\./);
    expect(res.body.info.title).toBeTruthy();
    const paths = Object.keys(res.body.paths);
    for (const path of [
      '/api/v1/account',
      '/api/v1/account/api-key',
      '/api/v1/services',
      '/api/v1/services/{id}',
      '/api/v1/services/{id}/permissions',
      '/api/v1/services/{id}/ip-allowlist',
      '/api/v1/keys/api/keyless',
      '/api/v1/keys/api/blacklist',
      '/api/v1/keys/api/blacklist/check',
      '/api/v1/keys/api/settings',
      '/api/v1/keys/api/service/info',
      '/api/v1/keys/api/service/status',
      '/api/v1/keys/api/execution',
      '/api/v1/keys/api/generate',
      '/api/v1/keys/validate',
    ]) {
      expect(paths).toContain(path);
    }
    expect(Object.keys(res.body.paths['/api/v1/keys/api/blacklist'])).toEqual(expect.arrayContaining(['get', 'post', 'delete']));
  });

  it('/docs serves the browsable documentation', async () => {
    const res = await t().app.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(res.statusCode);
    const page =
      res.statusCode === 302 ? await t().app.inject({ method: 'GET', url: String(res.headers.location).replace(/^\.\//, '/docs/') }) : res;
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body.toLowerCase()).toContain('swagger');
  });
});
