import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import dashboardRoutes from '../../src/modules/dashboard/dashboard.routes.ts';
import { useTestApp } from '../helpers/app.ts';

const t = useTestApp();

describe('the production app serves the dashboard beside the API', () => {
  it.each(['/', '/login', '/register', '/services', '/services/abc/keys', '/account', '/staff'])(
    'GET %s answers the app page',
    async (url) => {
      const res = await t().app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    },
  );

  it.each(['/api/v1/definitely/not/here', '/api', '/reset/assets/none.js', '/go/', '/key/x/y/z', '/assets/missing-0000.js'])(
    'GET %s on a server path stays the JSON 404',
    async (url) => {
      const res = await t().app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    },
  );

  it('leaves the server routes alone', async () => {
    const health = await t().app.inject({ method: 'GET', url: '/healthz' });
    expect(health.json()).toEqual({ status: 'ok' });
    const doc = await t().app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.json().openapi).toMatch(/^3\./);
  });

  it('does not list the dashboard routes in the API document', async () => {
    const doc = (await t().app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain('/');
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/assets'))).toBe(false);
  });
});

describe('the dashboard files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-dist-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function serve(distDir: string) {
    const app = Fastify({ logger: false });
    await app.register(dashboardRoutes, { distDir });
    await app.ready();
    return app;
  }

  it('serves hashed assets with a year-long immutable cache and index.html for app paths', async () => {
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>built app</title>');
    writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
    const app = await serve(dir);
    try {
      const asset = await app.inject({ method: 'GET', url: '/assets/index-Ab12Cd34.js' });
      expect(asset.statusCode).toBe(200);
      expect(asset.body).toBe('console.log(1)');
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const page = await app.inject({ method: 'GET', url: '/services/x/keys?page=2' });
      expect(page.body).toContain('built app');
    } finally {
      await app.close();
    }
  });

  it('answers a page that says to run npm run build when the app is not built', async () => {
    const app = await serve(join(dir, 'nothing-here'));
    try {
      const res = await app.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('npm run build');
    } finally {
      await app.close();
    }
  });
});
