import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV, solvedCaptcha } from '../signin/helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

async function boundKey() {
  const { app, ctx } = testApp();
  const service = await seedService(ctx);
  const [key] = await generateKeys(app, service.serviceKey);
  await call(app, 'GET', `/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=HW-A`);
  return { service, key: key! };
}

describe('public HWID reset', () => {
  it('applies the same cooldown as POST /keys/reset-hwid, whichever route reset first', async () => {
    const { app, clock } = testApp();
    const { service, key } = await boundKey();
    expect((await call(app, 'POST', '/api/v1/keys/reset-hwid', { key: service.serviceKey, body: { key } })).status).toBe(200);
    await call(app, 'GET', `/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=HW-B`);

    clock.advance(3_600_000);
    const page = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: service.id, key, captcha: await solvedCaptcha(app) },
    });
    expect(page.status).toBe(429);
    expect(page.body.code).toBe('HWID_RESET_COOLDOWN');
    expect(page.body.retryAfter).toBe(23 * 3600);
    expect(page.headers['retry-after']).toBe(String(23 * 3600));
    const api = await call(app, 'POST', '/api/v1/keys/reset-hwid', { key: service.serviceKey, body: { key } });
    expect({ status: page.status, code: page.body.code, retryAfter: page.body.retryAfter }).toEqual({
      status: api.status,
      code: api.body.code,
      retryAfter: api.body.retryAfter,
    });

    clock.advance(23 * 3_600_000);
    expect(
      (await call(app, 'POST', '/api/v1/public/reset-hwid', { body: { service: service.id, key, captcha: await solvedCaptcha(app) } }))
        .status,
    ).toBe(200);
  });

  it('gives an unknown key and another service’s key the same answer', async () => {
    const { app } = testApp();
    const mine = await boundKey();
    const theirs = await boundKey();
    const unknown = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: mine.service.id, key: 'A'.repeat(32), captcha: await solvedCaptcha(app) },
    });
    const foreign = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: mine.service.id, key: theirs.key, captcha: await solvedCaptcha(app) },
    });
    expect(unknown.status).toBe(404);
    expect({ status: foreign.status, error: foreign.body.error, code: foreign.body.code }).toEqual({
      status: unknown.status,
      error: unknown.body.error,
      code: unknown.body.code,
    });
    const theirRow = await testApp().ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', theirs.key).executeTakeFirstOrThrow();
    expect(theirRow.hwid).toBe('HW-A');
  });

  it('answers 409 for a key with no HWID, like the API', async () => {
    const { app } = testApp();
    const service = await seedService(testApp().ctx);
    const [key] = await generateKeys(app, service.serviceKey);
    const res = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: service.id, key, captcha: await solvedCaptcha(app) },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
  });

  it('requires a fresh, valid captcha before touching the key', async () => {
    const { app, ctx } = testApp();
    const { service, key } = await boundKey();
    const missing = await call(app, 'POST', '/api/v1/public/reset-hwid', { body: { service: service.id, key } });
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('captcha');
    const forged = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: service.id, key, captcha: Buffer.from('{}').toString('base64') },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.field).toBe('captcha');
    expect((await ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', key).executeTakeFirstOrThrow()).hwid).toBe('HW-A');

    const captcha = await solvedCaptcha(app);
    expect((await call(app, 'POST', '/api/v1/public/reset-hwid', { body: { service: service.id, key, captcha } })).status).toBe(200);
    await call(app, 'GET', `/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=HW-C`);
    const replay = await call(app, 'POST', '/api/v1/public/reset-hwid', { body: { service: service.id, key, captcha } });
    expect(replay.status).toBe(400);
    expect(replay.body.field).toBe('captcha');
  });

  it('answers 404 for an unknown service and 400 for malformed input', async () => {
    const { app } = testApp();
    const unknown = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: 'nope-nope', key: 'x', captcha: await solvedCaptcha(app) },
    });
    expect(unknown.status).toBe(404);
    for (const [body, field] of [
      [{ service: 'x', key: 5, captcha: 'c' }, 'key'],
      [{ service: 'x', key: 'k', captcha: 'c', hwid: 'h' }, 'hwid'],
      [{ key: 'k', captcha: 'c' }, 'service'],
    ] as const) {
      const res = await call(app, 'POST', '/api/v1/public/reset-hwid', { body });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe(field);
    }
  });
});
