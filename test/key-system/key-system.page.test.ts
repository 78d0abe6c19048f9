import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { checkpoint, configure, start } from './helpers.ts';

const t = useTestApp(SIGNIN_ENV);
const page = (url: string, cookie?: string) => t().app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

describe('GET /key/:service and its return page', () => {
  it('is a 404 page for an unknown service and for a service whose key system is off', async () => {
    const s = await seedService(t().ctx);
    for (const url of ['/key/no-such-service', `/key/${s.identifier}`, `/key/${s.identifier}/return?session=x`]) {
      const res = await page(url);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Key system not found');
    }
  });

  it('shows the captcha and "Checkpoint 1 of N" under the seller’s escaped title, with no inline script', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true, checkpoints: 3, pageTitle: '<b>Free</b> keys' });
    const res = await page(`/key/${s.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(res.body).toContain('<title>&lt;b&gt;Free&lt;/b&gt; keys</title>');
    expect(res.body).not.toContain('<b>Free</b>');
    expect(res.body).toContain('Checkpoint 1 of 3');
    expect(res.body).toContain('src="/reset/assets/altcha.js"');
    expect(res.body).toContain('src="/key/assets/key-system.js"');
    expect(res.body).not.toMatch(/<script>(?!<\/script>)/);
    const script = await page('/key/assets/key-system.js');
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.body).toContain('/api/v1/public/key-system/');
  });

  it('shows the session this browser started: progress with a Continue link, then the key with a copy button', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true, checkpoints: 2, minSecondsPerCheckpoint: 0 });
    const { cookie, id, res } = await start(t().app, s);
    const progress = await page(`/key/${s.identifier}`, cookie);
    expect(progress.body).toContain('Checkpoint 1 of 2');
    expect(progress.body).toContain(`href="${res.body.data.next.replace(/&/g, '&amp;')}"`);
    expect((await page(`/key/${s.identifier}?restart=1`, cookie)).body).toContain('Get key');
    await checkpoint(t().app, s, id, cookie);
    expect((await page(`/key/${s.identifier}`, cookie)).body).toContain('Checkpoint 2 of 2');
    const done = await checkpoint(t().app, s, id, cookie);
    const finished = await page(`/key/${s.identifier}`, cookie);
    expect(finished.body).toContain(done.body.data.key.key);
    expect(finished.body).toContain(`datetime="${done.body.data.key.expiresAt}"`);
    expect(finished.body).toContain('Copy key');
    // Someone else's browser sees the start page, never the key.
    const stranger = await page(`/key/${s.identifier}`);
    expect(stranger.body).not.toContain(done.body.data.key.key);
    expect(stranger.body).toContain('Get key');
  });

  it('the return page hands the provider’s token (token or hash) and the session to the page script', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true });
    const { cookie, id } = await start(t().app, s);
    for (const param of ['token', 'hash']) {
      const res = await page(`/key/${s.identifier}/return?session=${id}&${param}=abc-123`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`data-session="${id}"`);
      expect(res.body).toContain('data-token="abc-123"');
    }
    // Without ?session= (Work.ink's static destination) the browser's cookie names it; without either, a 404 page.
    expect((await page(`/key/${s.identifier}/return?token=t1`, cookie)).body).toContain(`data-session="${id}"`);
    expect((await page(`/key/${s.identifier}/return?token=t1`)).statusCode).toBe(404);
    expect((await page(`/key/${s.identifier}/return?session=${id}&token="><script>`)).body).not.toContain('"><script>');
  });

  it('keeps one session per service in one browser: a second service’s session does not replace the first', async () => {
    const a = await seedService(t().ctx);
    const b = await seedService(t().ctx);
    for (const s of [a, b]) await configure(t().app, s, { enabled: true, checkpoints: 2, minSecondsPerCheckpoint: 0 });
    const first = await start(t().app, a);
    const second = await start(t().app, b);
    expect(first.cookie.split('=')[0]).toBe(`kw_keysystem_${a.id}`);
    expect(second.cookie.split('=')[0]).toBe(`kw_keysystem_${b.id}`);
    // The browser sends both cookies everywhere (path /); each service reads its own.
    const both = `${first.cookie}; ${second.cookie}`;
    expect((await checkpoint(t().app, a, first.id, both)).body.data).toMatchObject({ checkpoint: 1, key: null });
    expect((await page(`/key/${a.identifier}`, both)).body).toContain('Checkpoint 2 of 2');
    expect((await page(`/key/${b.identifier}`, both)).body).toContain('Checkpoint 1 of 2');
    expect((await page(`/key/${b.identifier}`, both)).body).toContain(`session=${second.id}`);
    // One service's cookie is nothing to the other.
    expect((await checkpoint(t().app, b, second.id, first.cookie)).status).toBe(404);
  });

  it('reads ?restart through a query schema: 1 starts over, other parameters are ignored, an oversized value is a 400', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true, checkpoints: 2, minSecondsPerCheckpoint: 0 });
    const { cookie } = await start(t().app, s);
    expect((await page(`/key/${s.identifier}?utm_source=discord`, cookie)).body).toContain('Checkpoint 1 of 2');
    expect((await page(`/key/${s.identifier}?restart=0`, cookie)).body).toContain('Continue to checkpoint 1');
    expect((await page(`/key/${s.identifier}?restart=1`, cookie)).body).toContain('Get key');
    const bad = await page(`/key/${s.identifier}?restart=${'1'.repeat(9)}`, cookie);
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ code: 'VALIDATION_ERROR', field: 'restart' });
  });
});
