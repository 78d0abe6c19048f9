import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/execution';

describe('POST/GET /api/v1/keys/api/execution', () => {
  it('starts at zero with no activity', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', URL, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { executions: 0, lastActiveAt: null } });
  });

  it('counts an execution for the service without a key, with or without a body', async () => {
    const s = await seedService(t().ctx);
    const first = await call(t().app, 'POST', URL, { key: s.serviceKey });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ executions: 1, lastActiveAt: new Date(t().clock.now).toISOString() });
    t().clock.advance(60_000);
    const second = await call(t().app, 'POST', URL, { key: s.serviceKey, body: {} });
    expect(second.body.data).toEqual({ executions: 2, lastActiveAt: new Date(t().clock.now).toISOString() });
    const read = await call(t().app, 'GET', URL, { key: s.serviceKey });
    expect(read.body.data).toEqual(second.body.data);
  });

  it("with a key, also moves that key's executions and lastUsedAt", async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${key}&hwid=pc`);
    t().clock.advance(5000);
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { key } });
    expect(res.status).toBe(200);
    expect(res.body.data.executions).toBe(1);
    const row = await t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key!).executeTakeFirstOrThrow();
    expect(Number(row.executions)).toBe(1);
    expect(Number(row.lastUsedAt)).toBe(t().clock.now);
  });

  it('answers 404 for a key of another service and counts nothing', async () => {
    const mine = await seedService(t().ctx);
    const other = await seedService(t().ctx);
    const [foreign] = await generateKeys(t().app, other.serviceKey);
    await call(t().app, 'GET', `/api/v1/keys/validate?service=${other.id}&key=${foreign}&hwid=pc`);
    const res = await call(t().app, 'POST', URL, { key: mine.serviceKey, body: { key: foreign } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect((await call(t().app, 'GET', URL, { key: mine.serviceKey })).body.data.executions).toBe(0);
    const row = await t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', foreign!).executeTakeFirstOrThrow();
    expect(Number(row.executions)).toBe(0);
  });

  it('answers 404 for an unknown key', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { key: 'nope' } });
    expect(res.status).toBe(404);
  });

  it.each([
    ['a numeric key', { key: 5 }, 'key'],
    ['an unknown field', { count: 3 }, 'count'],
    ['a key over 64 characters', { key: 'k'.repeat(65) }, 'key'],
  ])('refuses %s', async (_label, body, field) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  it('refuses a body that is not an object', async () => {
    const s = await seedService(t().ctx);
    for (const body of ['[]', '"key"', '5']) {
      const res = await call(t().app, 'POST', URL, { key: s.serviceKey, body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await call(t().app, 'GET', URL, { key: s.serviceKey })).body.data.executions).toBe(0);
  });

  it('refuses a call without a key', async () => {
    expect((await call(t().app, 'POST', URL, { body: {} })).status).toBe(401);
    expect((await call(t().app, 'GET', URL)).status).toBe(401);
  });
});
