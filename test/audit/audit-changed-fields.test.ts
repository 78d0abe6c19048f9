import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { SCRIPTS, uploadScript } from '../scripts/script-helpers.ts';

/**
 * Contract §22: the audit log lists only the fields that changed and names scripts and products by name; a script
 * switched back on carries no disabledMessage and logs no codeChanged; the event-endpoint list says which plain-http
 * origins the server accepts.
 */
const t = useTestApp({ EVENT_WEBHOOK_ORIGINS: 'http://127.0.0.1:9' });

const lastEntry = async (s: SeededService, action: string) => {
  // Entries are ordered by time: the test clock moves on after each read, so the next change is later.
  t().clock.advance(1000);
  const rows = await t()
    .ctx.db.selectFrom('auditLog')
    .select(['details', 'target'])
    .where('serviceId', '=', s.id)
    .where('action', '=', action)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const row = rows[0]!;
  return {
    target: row.target,
    details: (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as Record<string, unknown>,
  };
};

describe('audit entries list only what changed (contract §22)', () => {
  it('the dashboard editor sends every field; editing only the note lists only the note', async () => {
    const s = await seedService(t().ctx);
    const [used, unused] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 30, count: 2 });
    await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${used}&hwid=pc-1`);
    const everything = { note: 'only this', status: 'active', isPremium: false, noHwidValidation: false, maxHwids: 1, chatId: null };
    for (const [path, key] of [
      ['/api/v1/keys/api/key', used],
      ['/api/v1/keys/api/generated-key', unused],
    ] as const) {
      const res = await call(t().app, 'PUT', path, {
        key: s.serviceKey,
        body: { key, ...everything, ...(key === used ? { hwid: 'pc-1' } : {}) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await lastEntry(s, 'key.update')).details).toEqual({ type: key === used ? 'active' : 'generated', note: 'only this' });
    }
    await call(t().app, 'PUT', '/api/v1/keys/api/key', {
      key: s.serviceKey,
      body: { key: used, note: 'only this', isPremium: true, hwid: null },
    });
    expect((await lastEntry(s, 'key.update')).details).toEqual({ type: 'active', isPremium: true, hwid: null });
  });

  it('switching a script back on clears its message and logs no codeChanged; entries name the script', async () => {
    const s = await seedService(t().ctx);
    await uploadScript(t().app, s, { name: 'main-loader', code: 'print("x")' });
    const off = await call(t().app, 'PUT', `${SCRIPTS}/main-loader`, {
      key: s.serviceKey,
      body: { enabled: false, disabledMessage: 'Back at six' },
    });
    expect(off.status).toBe(200);
    expect((await lastEntry(s, 'script.update')).details).toEqual({ name: 'main-loader', enabled: false, disabledMessage: 'Back at six' });

    const on = await call(t().app, 'PUT', `${SCRIPTS}/main-loader`, { key: s.serviceKey, body: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.data.disabledMessage ?? null).toBeNull();
    const row = await t().ctx.db.selectFrom('scripts').select('disabledMessage').where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(row.disabledMessage).toBeNull();
    const entry = (await lastEntry(s, 'script.update')).details;
    expect(entry).toEqual({ name: 'main-loader', enabled: true, disabledMessage: null });
    expect(entry).not.toHaveProperty('codeChanged');
  });

  it('products are named in their entries, and only changed fields are listed', async () => {
    const s = await seedService(t().ctx);
    const created = await call(t().app, 'POST', '/api/v1/keys/api/products', {
      key: s.serviceKey,
      body: { name: 'Monthly', expirationType: 'afterRedeem', days: 30, isPremium: false, maxHwids: 1 },
    });
    const id = created.body.data.id as string;
    await call(t().app, 'PUT', `/api/v1/keys/api/products/${id}`, {
      key: s.serviceKey,
      body: { name: 'Monthly', expirationType: 'afterRedeem', days: 30, isPremium: false, maxHwids: 1, note: 'sold on Sellix' },
    });
    expect((await lastEntry(s, 'product.update')).details).toEqual({ name: 'Monthly', note: 'sold on Sellix' });
    await call(t().app, 'DELETE', `/api/v1/keys/api/products/${id}`, { key: s.serviceKey });
    expect((await lastEntry(s, 'product.delete')).details).toEqual({ name: 'Monthly' });
  });

  it('the event-endpoint list names the plain-http origins the server accepts, and such an endpoint is accepted', async () => {
    const s = await seedService(t().ctx);
    const list = await call(t().app, 'GET', '/api/v1/keys/api/event-endpoints', { key: s.serviceKey });
    expect(list.body.data.httpOrigins).toEqual(['http://127.0.0.1:9']);
    const created = await call(t().app, 'POST', '/api/v1/keys/api/event-endpoints', {
      key: s.serviceKey,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(created.status).toBe(201);
    await call(t().app, 'DELETE', `/api/v1/keys/api/event-endpoints?id=${created.body.data.id}`, { key: s.serviceKey });
    expect((await lastEntry(s, 'eventEndpoint.delete')).details).toMatchObject({ url: 'http://127.0.0.1:9/hook' });
  });
});
