import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { OutboundNetworkError, OutboundRefused, postJson, type OutboundPolicy } from '../../src/net/outbound.ts';
import { isPublicAddress } from '../../src/lib/ssrf.ts';
import { FakePlatform } from './fake-platform.ts';

// `platform` is the one origin the test app allows; `hostile` listens on another port and must never
// see a connection, whatever spelling of its address a URL uses.
let platform: FakePlatform;
let hostile: FakePlatform;
let t: TestApp;

beforeAll(async () => {
  platform = await new FakePlatform().start();
  hostile = await new FakePlatform().start();
  t = await startTestApp({ CHAT_WEBHOOK_ORIGINS: platform.origin, WEBHOOK_WORKER_INTERVAL_MS: '0' });
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
  await platform.stop();
  await hostile.stop();
});

let s: SeededService;
beforeEach(async () => {
  platform.received.length = 0;
  s = await seedService(t.ctx);
});

const PATH = '/api/webhooks/123456789012345678/token';

function hostileUrls(): string[] {
  const H = hostile.port;
  const P = platform.port;
  return [
    `http://127.0.0.1:${H}${PATH}`,
    `http://127.1:${H}${PATH}`,
    `http://0x7f.0.0.1:${H}${PATH}`,
    `http://2130706433:${H}${PATH}`,
    `http://017700000001:${H}${PATH}`,
    `http://0177.0.0.1:${H}${PATH}`,
    `http://localhost:${H}${PATH}`,
    `http://[::1]:${H}${PATH}`,
    `http://[::ffff:127.0.0.1]:${H}${PATH}`,
    `http://[::ffff:7f00:1]:${H}${PATH}`,
    `http://0.0.0.0:${H}${PATH}`,
    `http://0:${H}${PATH}`,
    `https://127.0.0.1${PATH}`,
    `http://169.254.169.254${PATH}`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://metadata.google.internal${PATH}`,
    `http://metadata.google.internal/computeMetadata/v1/`,
    `https://10.0.0.1${PATH}`,
    `https://10.255.255.255${PATH}`,
    `https://172.16.0.1${PATH}`,
    `https://172.31.255.254${PATH}`,
    `https://192.168.1.1${PATH}`,
    `https://100.64.0.1${PATH}`,
    `https://0.0.0.0${PATH}`,
    `https://[::1]${PATH}`,
    `https://[fc00::1]${PATH}`,
    `https://[fd00:ec2::254]${PATH}`,
    `https://[fe80::1]${PATH}`,
    `https://[::ffff:a9fe:a9fe]${PATH}`,
    `https://discord.com@127.0.0.1:${H}${PATH}`,
    `https://discord.com:x@127.0.0.1:${H}${PATH}`,
    `http://127.0.0.1:${P}@127.0.0.1:${H}${PATH}`,
    `https://127.0.0.1:${H}#@discord.com${PATH}`,
    `https://127.0.0.1:${H}?@discord.com${PATH}`,
    `https://discord.com${PATH}#@127.0.0.1:${H}`,
    `https://discord.com${PATH}?next=http://127.0.0.1:${H}/`,
    `https://discord.com\\@127.0.0.1:${H}${PATH}`,
    `https://discord.com:8443${PATH}`,
    `https://discord.com:443@127.0.0.1:${H}${PATH}`,
    `http://discord.com${PATH}`,
    `https://discord.com.127.0.0.1.nip.io${PATH}`,
    `https://discord.com.evil.test${PATH}`,
    `https://evildiscord.com${PATH}`,
    `https://discord.com/api/webhooks/123456789012345678/token/../../../../x`,
    `ftp://discord.com${PATH}`,
    `file:///etc/passwd`,
    `javascript:alert(1)//discord.com${PATH}`,
    `http://127.0.0.1:${P + 1 === H ? P + 2 : P + 1}${PATH}`,
  ];
}

describe('webhook URL SSRF defence', () => {
  it('has at least 30 hostile URLs to try', () => {
    expect(hostileUrls().length).toBeGreaterThanOrEqual(30);
  });

  it('refuses every hostile webhook URL in the settings, and the hostile sink sees no connection', async () => {
    const before = hostile.connections;
    for (const url of hostileUrls()) {
      const res = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
        key: s.serviceKey,
        body: { webhookUrl: url, webhookEnabled: true },
      });
      expect({ url, status: res.status, code: res.body.code, field: res.body.field }).toEqual({
        url,
        status: 400,
        code: 'VALIDATION_ERROR',
        field: 'webhookUrl',
      });
    }
    const row = await t.ctx.db.selectFrom('services').select('webhookUrl').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.webhookUrl).toBeNull();
    expect(hostile.connections).toBe(before);
  });

  it('refuses at send time a stored URL whose origin is not allowed (defence in depth): 502, no connection', async () => {
    const before = hostile.connections;
    for (const url of [
      `http://127.1:${hostile.port}${PATH}`,
      `http://localhost:${hostile.port}${PATH}`,
      `http://[::1]:${hostile.port}${PATH}`,
    ]) {
      // As if the URL had been accepted under an older, wider CHAT_WEBHOOK_ORIGINS.
      await t.ctx.db.updateTable('services').set({ webhookUrl: url, webhookEnabled: 1 }).where('id', '=', s.id).execute();
      const res = await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'x' } });
      expect({ url, status: res.status, code: res.body.code }).toEqual({ url, status: 502, code: 'WEBHOOK_DELIVERY_FAILED' });
    }
    expect(hostile.connections).toBe(before);
  });

  it('never follows a redirect from the allowed sink to a hostile one', async () => {
    const before = hostile.connections;
    await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: platform.webhookUrl(), webhookEnabled: true },
    });
    for (const status of [301, 302, 307, 308]) {
      platform.answer({ status, headers: { location: `http://127.0.0.1:${hostile.port}${PATH}` } });
      const res = await call(t.app, 'POST', '/api/v1/keys/api/webhook', { key: s.serviceKey, body: { content: 'x' } });
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('WEBHOOK_DELIVERY_FAILED');
    }
    expect(platform.received).toHaveLength(4);
    expect(hostile.connections).toBe(before);
  });
});

describe('outbound requests (the transport every webhook call goes through)', () => {
  const policy = (overrides: Partial<OutboundPolicy> = {}): OutboundPolicy => ({
    platformOrigins: [],
    explicitOrigins: [],
    timeoutMs: 2_000,
    maxResponseBytes: 1024,
    ...overrides,
  });

  it('refuses a platform (not explicitly allowed) origin whose name resolves to loopback: localhost', async () => {
    const before = hostile.connections;
    const origin = `http://localhost:${hostile.port}`;
    await expect(postJson(`${origin}${PATH}`, {}, policy({ platformOrigins: [origin] }))).rejects.toBeInstanceOf(OutboundRefused);
    expect(hostile.connections).toBe(before);
  });

  it('refuses a platform origin that is a loopback literal', async () => {
    const before = hostile.connections;
    const origin = `http://127.0.0.1:${hostile.port}`;
    await expect(postJson(`${origin}${PATH}`, {}, policy({ platformOrigins: [origin] }))).rejects.toBeInstanceOf(OutboundRefused);
    expect(hostile.connections).toBe(before);
  });

  it.each([
    ['metadata', ['169.254.169.254']],
    ['private 10/8', ['10.1.2.3']],
    ['private 172.16/12', ['172.20.0.5']],
    ['private 192.168/16', ['192.168.0.10']],
    ['carrier-grade NAT', ['100.64.1.1']],
    ['unspecified', ['0.0.0.0']],
    ['IPv6 loopback', ['::1']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['unique-local', ['fd12:3456::1']],
    ['link-local v6', ['fe80::1']],
    ['NAT64 of loopback', ['64:ff9b::7f00:1']],
    ['a public address mixed with loopback', ['93.184.216.34', '127.0.0.1']],
  ])('refuses a name resolving to %s before connecting', async (_label, addresses) => {
    let lookups = 0;
    const resolve = async () => {
      lookups += 1;
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    const origin = 'https://hooks.platform.test';
    await expect(postJson(`${origin}${PATH}`, {}, policy({ platformOrigins: [origin], resolve }))).rejects.toBeInstanceOf(OutboundRefused);
    expect(lookups).toBe(1);
  });

  it('refuses an origin that is in neither list without resolving it', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups += 1;
      return [{ address: '93.184.216.34', family: 4 }];
    };
    await expect(
      postJson(`https://elsewhere.test${PATH}`, {}, policy({ platformOrigins: ['https://hooks.platform.test'], resolve })),
    ).rejects.toBeInstanceOf(OutboundRefused);
    await expect(
      postJson(`https://user:pw@hooks.platform.test${PATH}`, {}, policy({ platformOrigins: ['https://hooks.platform.test'], resolve })),
    ).rejects.toBeInstanceOf(OutboundRefused);
    expect(lookups).toBe(0);
  });

  it('resolves once and connects to the checked address, sending the name as Host (no rebinding gap)', async () => {
    let lookups = 0;
    // A second answer would point elsewhere; it must never be asked for.
    const resolve = async () => {
      lookups += 1;
      return lookups === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }];
    };
    const origin = `http://pinned.test:${platform.port}`;
    const response = await postJson(`${origin}${PATH}`, { content: 'pinned' }, policy({ explicitOrigins: [origin], resolve }));
    expect(response.status).toBe(204);
    expect(lookups).toBe(1);
    const last = platform.received.at(-1)!;
    expect(last.headers.host).toBe(`pinned.test:${platform.port}`);
    expect(last.body).toEqual({ content: 'pinned' });
  });

  it('cuts a response larger than the limit instead of buffering it', async () => {
    platform.answer({ status: 200, body: 'z'.repeat(200_000) });
    const response = await postJson(platform.webhookUrl(), {}, policy({ explicitOrigins: [platform.origin], maxResponseBytes: 1024 }));
    expect(response.status).toBe(200);
    expect(response.body.length).toBeLessThanOrEqual(1024);
  });

  it('gives up on a target that accepts the connection but never answers', async () => {
    const silent: Server = createServer(() => {
      // Holds the socket open and says nothing.
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const origin = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      await expect(postJson(`${origin}${PATH}`, {}, policy({ explicitOrigins: [origin], timeoutMs: 300 }))).rejects.toBeInstanceOf(
        OutboundNetworkError,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.close();
    }
  });

  it('classifies addresses: only public unicast space is reachable', () => {
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '162.159.135.232'])
      expect(isPublicAddress(address)).toBe(true);
    for (const address of [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::',
      '::1',
      '::ffff:10.0.0.1',
      'fc00::1',
      'fe80::1',
      '2002:7f00:1::',
      'not-an-ip',
    ]) {
      expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: false });
    }
  });
});
