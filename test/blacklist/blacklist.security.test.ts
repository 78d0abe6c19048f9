import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/blacklist';

describe('blacklist: isolation between services', () => {
  it("never lists, checks or removes another service's bans", async () => {
    const victim = await seedService(t().ctx);
    const attacker = await seedService(t().ctx);
    await call(t().app, 'POST', URL, { key: victim.serviceKey, body: { hwid: 'victim-pc', reason: 'secret reason' } });
    const listed = await call(t().app, 'GET', `${URL}?search=victim`, { key: attacker.serviceKey });
    expect(listed.body.data.total).toBe(0);
    const checked = await call(t().app, 'GET', `${URL}/check?hwid=victim-pc`, { key: attacker.serviceKey });
    expect(checked.body.data).toMatchObject({ blacklisted: false, reason: null });
    expect((await call(t().app, 'DELETE', `${URL}?hwid=victim-pc`, { key: attacker.serviceKey })).status).toBe(404);
    const still = await call(t().app, 'GET', `${URL}/check?hwid=victim-pc`, { key: victim.serviceKey });
    expect(still.body.data.blacklisted).toBe(true);
  });

  it.each([
    ['GET', URL, undefined],
    ['GET', `${URL}/check?hwid=x`, undefined],
    ['POST', URL, { hwid: 'x' }],
    ['DELETE', `${URL}?hwid=x`, undefined],
  ] as const)('%s %s refuses a call without a key', async (method, url, body) => {
    const res = await call(t().app, method, url, { body });
    expect(res.status).toBe(401);
  });
});
