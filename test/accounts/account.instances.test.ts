import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
let second: App;

beforeAll(async () => {
  // Another instance on the same database, as behind a load balancer.
  second = await anotherInstance(t());
});
afterAll(async () => {
  await second?.close();
});

describe('key regeneration across instances', () => {
  it('refuses the old account key on every instance as soon as one regenerates it', async () => {
    const s = await seedService(t().ctx);
    expect((await call(second, 'GET', '/api/v1/account', { key: s.account.accountKey })).status).toBe(200);
    const res = await call(t().app, 'POST', '/api/v1/account/api-key/regenerate', { key: s.account.accountKey });
    expect(res.status).toBe(200);
    expect((await call(second, 'GET', '/api/v1/account', { key: s.account.accountKey })).status).toBe(401);
    expect((await call(second, 'GET', '/api/v1/account', { key: res.body.data.apiKey })).status).toBe(200);
  });

  it('refuses the old service key on every instance as soon as one regenerates it', async () => {
    const s = await seedService(t().ctx);
    expect((await call(second, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey })).status).toBe(200);
    const res = await call(t().app, 'POST', `/api/v1/services/${s.id}/api-key/regenerate`, { key: s.account.accountKey });
    expect(res.status).toBe(200);
    expect((await call(second, 'GET', '/api/v1/keys/api/service/info', { key: s.serviceKey })).status).toBe(401);
    expect((await call(second, 'GET', '/api/v1/keys/api/service/info', { key: res.body.data.apiKey })).status).toBe(200);
  });
});
