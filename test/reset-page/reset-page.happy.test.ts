import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV, solvedCaptcha } from '../signin/helpers.ts';

const testApp = useTestApp(SIGNIN_ENV);

async function boundKey(hwid = 'HWID-1') {
  const { app, ctx } = testApp();
  const service = await seedService(ctx);
  const [key] = await generateKeys(app, service.serviceKey);
  const validated = await call(app, 'GET', `/api/v1/keys/validate?service=${service.identifier}&key=${key}&hwid=${hwid}`);
  expect(validated.body.data.valid).toBe(true);
  return { service, key: key! };
}

describe('self-serve reset page', () => {
  it('serves a plain HTML page with the ALTCHA widget for a known service', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const res = await app.inject({ method: 'GET', url: `/reset/${service.identifier}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(res.body).toContain('<form id="reset-form"');
    expect(res.body).toContain(`data-service="${service.identifier}"`);
    expect(res.body).toContain('src="/reset/assets/altcha.js"');
    expect(res.body).not.toMatch(/<script>(?!<\/script>)/); // no inline script
    expect((await app.inject({ method: 'GET', url: `/reset/${service.id}` })).statusCode).toBe(200);
  });

  it('serves the widget from the installed altcha package and the page script', async () => {
    const { app } = testApp();
    const widget = await app.inject({ method: 'GET', url: '/reset/assets/altcha.js' });
    expect(widget.statusCode).toBe(200);
    expect(widget.headers['content-type']).toMatch(/javascript/);
    expect(widget.body).toContain('altcha-widget');
    const script = await app.inject({ method: 'GET', url: '/reset/assets/reset.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain('/api/v1/public/reset-hwid');
    expect(script.body).toContain('/api/v1/auth/captcha');
  });

  it('answers an unknown service with a 404 page', async () => {
    const { app } = testApp();
    const res = await app.inject({ method: 'GET', url: '/reset/no-such-service' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Service not found');
  });

  it('escapes the service name in the page', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    await ctx.db.updateTable('services').set({ name: '<img src=x onerror=alert(1)>' }).where('id', '=', service.id).execute();
    const res = await app.inject({ method: 'GET', url: `/reset/${service.id}` });
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('resets the HWID through the public endpoint with a solved captcha', async () => {
    const { app, ctx, clock } = testApp();
    const { service, key } = await boundKey();
    const res = await call(app, 'POST', '/api/v1/public/reset-hwid', {
      body: { service: service.identifier, key, captcha: await solvedCaptcha(app) },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      key,
      hwid: null,
      hwidResetAt: new Date(clock.now).toISOString(),
      nextResetAt: new Date(clock.now + 24 * 3_600_000).toISOString(),
    });
    const row = await ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
    expect(row.hwid).toBeNull();
    expect(row.hwidResetCount).toBe(1);
  });
});
