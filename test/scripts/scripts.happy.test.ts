import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const LOADSTRING = /^loadstring\(game:HttpGet\("http:\/\/keyward\.test\/api\/v1\/vss\/loader\/([0-9a-f-]{36})"\)\)\(\)$/;

describe('POST /api/v1/vss/api/scripts', () => {
  it('stores a script and answers the Script record with its loadstring', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/vss/api/scripts', { key: s.serviceKey, body: { name: 'main.lua', code: 'print("hé")' } });
    expect(res.status).toBe(201);
    const script = res.body.data;
    expect(script).toEqual({
      id: expect.any(String),
      name: 'main.lua',
      obfuscationType: 'NONE',
      visible: true,
      size: Buffer.byteLength('print("hé")'),
      status: 'ready',
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
      loadstring: `loadstring(game:HttpGet("http://keyward.test/api/v1/vss/loader/${script.id}"))()`,
    });
    expect(LOADSTRING.exec(script.loadstring)?.[1]).toBe(script.id);
    const row = await t().ctx.db.selectFrom('scripts').selectAll().where('id', '=', script.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ serviceId: s.id, name: 'main.lua', status: 'ready', visible: 1 });
    expect(row.outputBlob).toBe(row.sourceBlob);
  });

  it('accepts an account key with X-Service-Id and an invisible script', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/vss/api/scripts', {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.identifier },
      body: { name: 'hidden', code: 'return 1', visible: false },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'hidden', visible: false });
  });

  it('delivers the exact code to a valid key', async () => {
    const s = await seedService(t().ctx);
    const code = 'print("marker") -- ' + 'é'.repeat(10);
    const created = await call(t().app, 'POST', '/api/v1/vss/api/scripts', { key: s.serviceKey, body: { name: 'x', code } });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await t().app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${created.body.data.id}?key=${key}&hwid=pc1` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(code);
  });
});
