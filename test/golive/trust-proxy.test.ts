import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

/**
 * Contract §11: TRUST_PROXY `true`, a hop count and a list all make the same client address reach every use of it:
 * the audit log's `ip`, the per-address limits (here the failed-authentication budget, whose whole point is that one
 * client's bad keys never lock out the others behind the same proxy) and the service's IP allowlist.
 */
interface Mode {
  setting: string;
  /** The socket address the request arrives from (the proxy nearest the server). */
  socket: string;
  /** X-Forwarded-For as that proxy sends it, with `CLIENT` where the real client's address goes. */
  forwardedFor: string;
}

const modes: Mode[] = [
  // Everything is a proxy: the client is the leftmost address.
  { setting: 'true', socket: '10.0.0.1', forwardedFor: 'CLIENT' },
  // One proxy (Caddy on the same host): an address the client wrote itself in X-Forwarded-For is not believed.
  { setting: '1', socket: '127.0.0.1', forwardedFor: '66.66.66.66, CLIENT' },
  // A CDN, then Caddy: the client is two places from the right end of socket + X-Forwarded-For.
  { setting: '2', socket: '127.0.0.1', forwardedFor: '66.66.66.66, CLIENT, 172.16.5.5' },
  // The proxies by address: the first untrusted one from the right is the client.
  { setting: '127.0.0.1, 172.16.0.0/12', socket: '127.0.0.1', forwardedFor: '66.66.66.66, CLIENT, 172.16.5.5' },
];

let next = 1;
/** A fresh documentation-range address per test, so no budget is shared between tests by accident. */
const clientAddress = () => `203.0.113.${next++}`;

describe.each(modes)('TRUST_PROXY=$setting', (mode) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: mode.setting, RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await t?.app.close();
    await t?.database.drop();
  });
  const through = (client: string) => ({
    remoteAddress: mode.socket,
    headers: { 'x-forwarded-for': mode.forwardedFor.replace('CLIENT', client) },
  });
  const info = (key: string, client: string) => call(t.app, 'GET', '/api/v1/keys/api/service/info', { key, ...through(client) });

  it('writes the real client address into the audit log', async () => {
    const s = await seedService(t.ctx);
    const client = clientAddress();
    const res = await call(t.app, 'POST', '/api/v1/keys/api/generate', {
      key: s.serviceKey,
      body: { expirationType: 'lifetime' },
      ...through(client),
    });
    expect(res.status).toBe(201);
    const rows = await t.ctx.db
      .selectFrom('auditLog')
      .select(['ip'])
      .where('serviceId', '=', s.id)
      .where('action', '!=', 'service.create')
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.ip)).toEqual(rows.map(() => client));
  });

  it("limits failed authentication per real client: one client's bad keys do not lock out another behind the same proxy", async () => {
    const s = await seedService(t.ctx);
    const attacker = clientAddress();
    const buyer = clientAddress();
    for (let i = 0; i < 3; i++) expect((await info(`kws_wrong-${i}`, attacker)).status).toBe(401);
    const limited = await info(s.serviceKey, attacker);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect((await info(s.serviceKey, buyer)).status).toBe(200);
  });

  it("checks the service's IP allowlist against the real client", async () => {
    const s = await seedService(t.ctx);
    const allowed = clientAddress();
    const put = await call(t.app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, {
      key: s.account.accountKey,
      body: { entries: [allowed] },
    });
    expect(put.status).toBe(200);
    expect((await info(s.serviceKey, allowed)).status).toBe(200);
    const outside = await info(s.serviceKey, clientAddress());
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe('IP_NOT_ALLOWED');
  });
});

describe('TRUST_PROXY without a proxy in front', () => {
  it('does not believe X-Forwarded-For from a client that reaches the server directly, with a hop count or a list', async () => {
    for (const setting of ['1', '127.0.0.1']) {
      const t = await startTestApp({ TRUST_PROXY: setting });
      try {
        const s = await seedService(t.ctx);
        const res = await call(t.app, 'POST', '/api/v1/keys/api/generate', {
          key: s.serviceKey,
          body: { expirationType: 'lifetime' },
          remoteAddress: '198.51.100.7',
          headers: { 'x-forwarded-for': '1.2.3.4' },
        });
        expect(res.status).toBe(201);
        const ips = await t.ctx.db
          .selectFrom('auditLog')
          .select(['ip'])
          .where('serviceId', '=', s.id)
          .where('action', '!=', 'service.create')
          .execute();
        // A hop count trusts the socket's peer as the one proxy, so its X-Forwarded-For names the client.
        expect(ips.length).toBeGreaterThan(0);
        expect(ips[0]!.ip).toBe(setting === '1' ? '1.2.3.4' : '198.51.100.7');
      } finally {
        await t.app.close();
        await t.database.drop();
      }
    }
  });
});

describe('TRUST_PROXY parsing', () => {
  const parse = (value: string) => loadConfig({ KEYWARD_SECRET: TEST_SECRET, DATA_DIR: '/tmp/unused', TRUST_PROXY: value }).trustProxy;
  it('reads true, a hop count, 0 as off, and a list', () => {
    expect(parse('true')).toBe(true);
    expect(parse('2')).toBe(2);
    expect(parse('0')).toBe(false);
    expect(parse('127.0.0.1, 10.0.0.0/8, loopback')).toEqual(['127.0.0.1', '10.0.0.0/8', 'loopback']);
  });
  it('refuses an entry that is not an address, naming it', () => {
    expect(() => parse('caddy')).toThrow(ConfigError);
    expect(() => parse('caddy')).toThrow(/TRUST_PROXY: "caddy" is not an IP address/);
  });
});
