import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/keyless';

describe('keyless: isolation between services', () => {
  it("never shows or removes another service's entry", async () => {
    const victim = await seedService(t().ctx);
    const attacker = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: victim.serviceKey, body: { hwid: 'victim-pc' } });
    expect((await call(t().app, 'GET', `${URL}?hwid=victim-pc`, { key: attacker.serviceKey })).status).toBe(404);
    expect((await call(t().app, 'DELETE', `${URL}?hwid=victim-pc`, { key: attacker.serviceKey })).status).toBe(404);
    expect((await call(t().app, 'GET', `${URL}?hwid=victim-pc`, { key: victim.serviceKey })).status).toBe(200);
  });

  it('lets two services whitelist the same HWID independently', async () => {
    const a = await seedService(t().ctx);
    const b = await seedService(t().ctx);
    expect((await call(t().app, 'POST', URL, { key: a.serviceKey, body: { hwid: 'shared-pc' } })).status).toBe(201);
    expect((await call(t().app, 'POST', URL, { key: b.serviceKey, body: { hwid: 'shared-pc' } })).status).toBe(201);
  });

  it.each([
    ['GET', `${URL}?hwid=x`, undefined],
    ['POST', URL, { hwid: 'x' }],
    ['DELETE', `${URL}?hwid=x`, undefined],
  ] as const)('%s refuses a call without a key', async (method, url, body) => {
    const res = await call(t().app, method, url, { body });
    expect(res.status).toBe(401);
  });
});
