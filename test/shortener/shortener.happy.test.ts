import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const testApp = useTestApp();

describe('URL shortener', () => {
  it('creates a link with a chosen slug', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const res = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: service.serviceKey,
      body: { url: 'https://example.com/download?x=1', slug: 'my-Link_1' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: { slug: 'my-Link_1', shortUrl: 'http://keyward.test/go/my-Link_1', url: 'https://example.com/download?x=1' },
    });
  });

  it('draws a random slug when none is given', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const res = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: service.serviceKey,
      body: { url: 'http://example.org' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.slug).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(res.body.data.shortUrl).toBe(`http://keyward.test/go/${res.body.data.slug}`);
    expect(res.body.data.url).toBe('http://example.org/');
  });

  it('redirects /go/:slug with 302 and counts each click', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: service.serviceKey,
      body: { url: 'https://example.com/a', slug: 'clicky' },
    });
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: 'GET', url: '/go/clicky' });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('https://example.com/a');
    }
    const links = await call(app, 'GET', '/api/v1/public/shortener/links', { key: service.serviceKey });
    expect(links.status).toBe(200);
    expect(links.body.data).toMatchObject({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(links.body.data.items).toEqual([
      { slug: 'clicky', shortUrl: 'http://keyward.test/go/clicky', url: 'https://example.com/a', clicks: 3, createdAt: expect.any(String) },
    ]);
    const row = await ctx.db.selectFrom('shortLinks').selectAll().where('slug', '=', 'clicky').executeTakeFirstOrThrow();
    expect(Number(row.clicks)).toBe(3);
  });

  it('answers an unknown slug with a 404 page', async () => {
    const { app } = testApp();
    const res = await app.inject({ method: 'GET', url: '/go/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('Link not found');
  });

  it('pages the owner’s links and deletes one by slug', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    for (const slug of ['aaa', 'bbb', 'ccc']) {
      await call(app, 'POST', '/api/v1/public/shortener/create', {
        key: service.serviceKey,
        body: { url: 'https://example.com', slug: `${slug}-${service.identifier.slice(-6)}` },
      });
    }
    const page = await call(app, 'GET', '/api/v1/public/shortener/links?page=2&limit=2', { key: service.serviceKey });
    expect(page.body.data).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(page.body.data.items).toHaveLength(1);
    const slug = `bbb-${service.identifier.slice(-6)}`;
    const del = await call(app, 'DELETE', `/api/v1/public/shortener/links?slug=${slug}`, { key: service.serviceKey });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ deleted: 1 });
    expect((await app.inject({ method: 'GET', url: `/go/${slug}` })).statusCode).toBe(404);
    const byBody = await call(app, 'DELETE', '/api/v1/public/shortener/links', {
      key: service.serviceKey,
      body: { slug: `aaa-${service.identifier.slice(-6)}` },
    });
    expect(byBody.status).toBe(200);
  });

  it('works with the account key and X-Service-Id', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const res = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: service.account.accountKey,
      headers: { 'x-service-id': service.identifier },
      body: { url: 'https://example.com/owner' },
    });
    expect(res.status).toBe(201);
  });
});
