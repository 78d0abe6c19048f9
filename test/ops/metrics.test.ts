import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

let on: TestApp;
let off: TestApp;

beforeAll(async () => {
  on = await startTestApp({ METRICS: 'on', METRICS_ALLOW: '127.0.0.1,10.1.0.0/16,::1' });
  off = await startTestApp();
});

afterAll(async () => {
  for (const t of [on, off]) {
    await t?.app.close();
    await t?.database.drop();
  }
});

const scrape = (t: TestApp, remoteAddress = '127.0.0.1') => t.app.inject({ method: 'GET', url: '/metrics', remoteAddress });

describe('GET /metrics', () => {
  it('does not exist unless METRICS=on', async () => {
    const res = await scrape(off);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('answers the allowed addresses and ranges, and is a plain 404 for every other address', async () => {
    for (const address of ['127.0.0.1', '10.1.200.3', '::1', '::ffff:127.0.0.1']) expect((await scrape(on, address)).statusCode).toBe(200);
    for (const address of ['10.2.0.1', '192.0.2.7', '2001:db8::1']) {
      const res = await scrape(on, address);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
  });

  it('counts requests by route pattern and status, verdicts by code, the outbox and (PostgreSQL) the pool', async () => {
    const s = await seedService(on.ctx);
    const [key] = await generateKeys(on.app, s.serviceKey);
    expect((await call(on.app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=pc-1`)).body.data.code).toBe(
      'KEY_VALID',
    );
    expect((await call(on.app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=pc-2`)).body.data.code).toBe(
      'KEY_HWID_LOCKED',
    );
    await call(on.app, 'GET', '/api/v1/no/such/route/7f3a');

    const res = await scrape(on);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    expect(text).toMatch(/keyward_http_requests_total\{method="GET",route="\/api\/v1\/keys\/validate",status="200"\} 2/);
    expect(text).toMatch(/keyward_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/keys\/validate",status="200"\} 2/);
    // An unknown URL is counted under one label, never its own text.
    expect(text).toMatch(/keyward_http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/);
    expect(text).not.toContain('7f3a');
    expect(text).toMatch(/keyward_verdicts_total\{code="KEY_VALID"\} 1/);
    expect(text).toMatch(/keyward_verdicts_total\{code="KEY_HWID_LOCKED"\} 1/);
    expect(text).toMatch(/keyward_webhook_outbox_messages\{status="pending"\} 0/);
    expect(text).toContain('keyward_process_resident_memory_bytes');
    if (testDialect() === 'postgres') expect(text).toMatch(/keyward_db_pool_connections\{state="total"\} \d+/);
    else expect(text).not.toContain('keyward_db_pool_connections');
  });

  it('refuses a METRICS_ALLOW entry that is not an address or range at start', () => {
    expect(() => loadConfig({ KEYWARD_SECRET: TEST_SECRET, METRICS: 'on', METRICS_ALLOW: 'localhost' })).toThrow(
      /METRICS_ALLOW: "localhost" is not an IP address or CIDR range/,
    );
    expect(() => loadConfig({ KEYWARD_SECRET: TEST_SECRET, METRICS: 'yes' })).toThrow(/METRICS must be on or off/);
  });
});
