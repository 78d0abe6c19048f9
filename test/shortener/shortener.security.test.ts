import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const testApp = useTestApp();
const DENIED = 'This API key is not permitted for this action (allowUrlShortener)';

describe('shortener access', () => {
  it('refuses a service key without allowUrlShortener with the exact sentence, on every shortener route', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    await ctx.db.updateTable('services').set({ allowUrlShortener: 0 }).where('id', '=', service.id).execute();
    const create = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: service.serviceKey,
      body: { url: 'https://example.com' },
    });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ success: false, error: DENIED, code: 'PERMISSION_DENIED' });
    const list = await call(app, 'GET', '/api/v1/public/shortener/links', { key: service.serviceKey });
    expect(list.status).toBe(403);
    expect(list.body.error).toBe(DENIED);
    const del = await call(app, 'DELETE', '/api/v1/public/shortener/links?slug=abc', { key: service.serviceKey });
    expect(del.status).toBe(403);
    expect(await ctx.db.selectFrom('shortLinks').selectAll().where('serviceId', '=', service.id).execute()).toEqual([]);
  });

  it('checks the flag before the input', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    await ctx.db.updateTable('services').set({ allowUrlShortener: 0 }).where('id', '=', service.id).execute();
    const res = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: service.serviceKey,
      body: { url: 'javascript:alert(1)' },
    });
    expect(res.status).toBe(403);
  });

  it('lets the owner’s account key through even when the flag is off', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    await ctx.db.updateTable('services').set({ allowUrlShortener: 0 }).where('id', '=', service.id).execute();
    const res = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: service.account.accountKey,
      headers: { 'x-service-id': service.id },
      body: { url: 'https://example.com' },
    });
    expect(res.status).toBe(201);
  });

  it('needs a key: 401 without one, or with one in the query string', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    expect((await call(app, 'POST', '/api/v1/public/shortener/create', { body: { url: 'https://example.com' } })).status).toBe(401);
    expect(
      (await call(app, 'POST', `/api/v1/public/shortener/create?apiKey=${service.serviceKey}`, { body: { url: 'https://example.com' } }))
        .status,
    ).toBe(401);
  });

  it('keeps each service’s links to itself: listing and deleting another’s slug', async () => {
    const { app, ctx } = testApp();
    const a = await seedService(ctx);
    const b = await seedService(ctx);
    await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: a.serviceKey,
      body: { url: 'https://a.example', slug: `mine-${a.identifier.slice(-6)}` },
    });
    expect((await call(app, 'GET', '/api/v1/public/shortener/links', { key: b.serviceKey })).body.data.total).toBe(0);
    const del = await call(app, 'DELETE', `/api/v1/public/shortener/links?slug=mine-${a.identifier.slice(-6)}`, { key: b.serviceKey });
    expect(del.status).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/go/mine-${a.identifier.slice(-6)}` })).statusCode).toBe(302);
  });
});
