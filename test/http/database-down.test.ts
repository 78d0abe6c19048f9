import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, seedAccount, type SeededAccount } from '../helpers/seed.ts';

let t: TestApp;
let account: SeededAccount;

beforeAll(async () => {
  t = await startTestApp();
  account = await seedAccount(t.ctx);
  await t.database.handle.close();
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop().catch(() => undefined);
});

describe('when the database does not answer', () => {
  it('GET /healthz answers 503', async () => {
    const res = await call(t.app, 'GET', '/healthz');
    expect(res.status).toBe(503);
    expect(res.body.status).not.toBe('ok');
  });

  it('an API call answers 503 UNAVAILABLE with Retry-After, a generic sentence, a request id and no internals (contract §10)', async () => {
    const res = await call(t.app, 'GET', '/api/v1/account', { key: account.accountKey });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'UNAVAILABLE', retryAfter: 5 });
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
    expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'requestId', 'retryAfter', 'success']);
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/\.ts\b|\.js\b|node_modules|\/src\/|\bat \S+ \(/);
    expect(text).not.toMatch(/select|sqlite|postgres|pool|destroy|closed/i);
  });
});
