import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const testApp = useTestApp();

describe('shortener input', () => {
  it('refuses URLs that are not http or https, and overlong ones', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const bad = [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'ftp://example.com/file',
      'file:///etc/passwd',
      '//example.com',
      'example.com',
      'https://',
      'https://exa mple.com',
      'https://example.com/\nSet-Cookie: x=1',
      'https://example.com/' + 'a'.repeat(2049 - 'https://example.com/'.length),
      '',
    ];
    expect(bad[10]!.length).toBe(2049);
    for (const url of bad) {
      const res = await call(app, 'POST', '/api/v1/public/shortener/create', { key: service.serviceKey, body: { url } });
      expect(res.status, url.slice(0, 40)).toBe(400);
      expect(res.body.field).toBe('url');
    }
    const longest = 'https://example.com/' + 'a'.repeat(2048 - 'https://example.com/'.length);
    expect((await call(app, 'POST', '/api/v1/public/shortener/create', { key: service.serviceKey, body: { url: longest } })).status).toBe(
      201,
    );
    expect(await ctx.db.selectFrom('shortLinks').select('slug').where('serviceId', '=', service.id).execute()).toHaveLength(1);
  });

  it('refuses a taken slug with 409, also across services', async () => {
    const { app, ctx } = testApp();
    const a = await seedService(ctx);
    const b = await seedService(ctx);
    expect(
      (await call(app, 'POST', '/api/v1/public/shortener/create', { key: a.serviceKey, body: { url: 'https://a.example', slug: 'taken' } }))
        .status,
    ).toBe(201);
    const again = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: a.serviceKey,
      body: { url: 'https://a.example', slug: 'taken' },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
    const other = await call(app, 'POST', '/api/v1/public/shortener/create', {
      key: b.serviceKey,
      body: { url: 'https://b.example', slug: 'taken' },
    });
    expect(other.status).toBe(409);
    expect((await app.inject({ method: 'GET', url: '/go/taken' })).headers.location).toBe('https://a.example/');
  });

  it('refuses bad slugs, unknown fields and wrong types', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const cases: Array<[unknown, string]> = [
      [{ url: 'https://e.com', slug: 'ab' }, 'slug'],
      [{ url: 'https://e.com', slug: 'x'.repeat(33) }, 'slug'],
      [{ url: 'https://e.com', slug: 'has/slash' }, 'slug'],
      [{ url: 'https://e.com', slug: 'dot.ted' }, 'slug'],
      [{ url: 5 }, 'url'],
      [{}, 'url'],
      [{ url: 'https://e.com', title: 'x' }, 'title'],
    ];
    for (const [body, field] of cases) {
      const res = await call(app, 'POST', '/api/v1/public/shortener/create', { key: service.serviceKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.field).toBe(field);
    }
  });

  it('answers 404 when deleting a slug that does not exist', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    expect((await call(app, 'DELETE', '/api/v1/public/shortener/links?slug=nope-nope', { key: service.serviceKey })).status).toBe(404);
    expect((await call(app, 'DELETE', '/api/v1/public/shortener/links', { key: service.serviceKey })).status).toBe(400);
  });
});
