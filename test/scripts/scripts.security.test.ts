import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { SCRIPTS, uploadScript } from './script-helpers.ts';

const t = useTestApp();

type Route = { label: string; method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: (ref: string) => string; body?: unknown };
const ROUTES: Route[] = [
  { label: 'upload', method: 'POST', url: () => SCRIPTS, body: { name: 'fresh', code: 'x' } },
  { label: 'list', method: 'GET', url: () => SCRIPTS },
  { label: 'loadstring', method: 'GET', url: (ref) => `${SCRIPTS}/${ref}/loadstring` },
  { label: 'update', method: 'PUT', url: (ref) => `${SCRIPTS}/${ref}`, body: { visible: false } },
  { label: 'delete', method: 'DELETE', url: (ref) => `${SCRIPTS}/${ref}` },
];

async function withScript(): Promise<{ s: SeededService; id: string }> {
  const s = await seedService(t().ctx);
  const script = await uploadScript(t().app, s, { name: 'guarded', code: 'print("secret")' });
  return { s, id: script.id };
}

describe('VSS routes security', () => {
  it.each(ROUTES)('$label: 401 without a key and with a key only in the query string', async (route) => {
    const { s, id } = await withScript();
    const none = await call(t().app, route.method, route.url(id), { body: route.body });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    const query = await call(t().app, route.method, `${route.url(id)}${route.url(id).includes('?') ? '&' : '?'}apiKey=${s.serviceKey}`, {
      body: route.body,
    });
    expect(query.status).toBe(401);
    const bogus = await call(t().app, route.method, route.url(id), { key: 'kws_' + 'a'.repeat(40), body: route.body });
    expect(bogus.status).toBe(401);
  });

  it('answers 403 with the exact sentence on every VSS route when allowVss is off, and nothing changes', async () => {
    const { s, id } = await withScript();
    const patch = await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, {
      key: s.account.accountKey,
      body: { allowVss: false },
    });
    expect(patch.status).toBe(200);
    for (const route of ROUTES) {
      const res = await call(t().app, route.method, route.url(id), { key: s.serviceKey, body: route.body });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'PERMISSION_DENIED', error: 'This API key is not permitted for this action (allowVss)' });
    }
    const row = await t().ctx.db.selectFrom('scripts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.visible).toBe(1);
    // The owner's account key is not restricted by the service's flags.
    const owner = await call(t().app, 'GET', SCRIPTS, { key: s.account.accountKey, headers: { 'x-service-id': s.id } });
    expect(owner.status).toBe(200);
    // GET /keys/api/scripts is never gated.
    const visible = await call(t().app, 'GET', '/api/v1/keys/api/scripts', { key: s.serviceKey });
    expect(visible.status).toBe(200);
    expect(visible.body.data.scripts).toHaveLength(1);
  });

  it('checks the flag before the input: a bad body still gets 403 when allowVss is off', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: { allowVss: false } });
    const res = await call(t().app, 'POST', SCRIPTS, { key: s.serviceKey, body: { name: 42 } });
    expect(res.status).toBe(403);
  });

  it('refuses a service key from outside its IP allowlist', async () => {
    const { s, id } = await withScript();
    const set = await call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, {
      key: s.account.accountKey,
      body: { entries: ['10.0.0.0/8'] },
    });
    expect(set.status).toBe(200);
    for (const route of ROUTES) {
      const outside = await call(t().app, route.method, route.url(id), {
        key: s.serviceKey,
        body: route.body,
        remoteAddress: '192.168.1.5',
      });
      expect(outside.status).toBe(403);
      expect(outside.body.code).toBe('IP_NOT_ALLOWED');
    }
    const inside = await call(t().app, 'GET', SCRIPTS, { key: s.serviceKey, remoteAddress: '10.1.2.3' });
    expect(inside.status).toBe(200);
  });

  it("answers 404 for another account's script, by id and by name, and leaves it alone", async () => {
    const { id } = await withScript();
    const intruder = await seedService(t().ctx);
    for (const ref of [id, 'guarded']) {
      for (const route of ROUTES.slice(2)) {
        const res = await call(t().app, route.method, route.url(ref), { key: intruder.serviceKey, body: route.body });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    }
    const list = await call(t().app, 'GET', SCRIPTS, { key: intruder.serviceKey });
    expect(list.body.data.total).toBe(0);
    const row = await t().ctx.db.selectFrom('scripts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.visible).toBe(1);
  });

  it("answers 404 when an account key names another account's service", async () => {
    const { s } = await withScript();
    const other = await seedService(t().ctx);
    const res = await call(t().app, 'GET', SCRIPTS, { key: other.account.accountKey, headers: { 'x-service-id': s.id } });
    expect(res.status).toBe(404);
    const missing = await call(t().app, 'GET', SCRIPTS, { key: other.account.accountKey });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('SERVICE_ID_REQUIRED');
  });

  it('refuses an upload before reading its body when the key is missing', async () => {
    const res = await call(t().app, 'POST', SCRIPTS, { body: { name: 'x', code: 'a'.repeat(41_943_041) } });
    expect(res.status).toBe(401);
  });
});
