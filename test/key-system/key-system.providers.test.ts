import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { digest } from '../../src/lib/secrets.ts';
import { providerDns } from '../../src/modules/key-system/key-system.providers.ts';
import { checkpoint, configure, FakeProviders, start } from './helpers.ts';

const t = useTestApp(SIGNIN_ENV);
const fake = new FakeProviders();

beforeAll(async () => {
  const url = await fake.listen();
  // The *_API_URL overrides point the provider checks at the fake (an explicit origin, like CHAT_WEBHOOK_ORIGINS).
  Object.assign(t().ctx.config.keySystem, { workinkApiUrl: url, linkvertiseApiUrl: url, lootlabsApiUrl: url, providerTimeoutMs: 300 });
});
afterAll(() => fake.close());

async function providerService(provider: string, extra: Record<string, unknown> = {}) {
  const s = await seedService(t().ctx);
  // Work.ink's "token" is the seller's link ids; the fake's Work.ink issues tokens of link 10345.
  const token = provider === 'linkvertise' ? fake.linkvertiseToken : provider === 'lootlabs' ? fake.lootlabsToken : '10345';
  const link = {
    workink: 'https://work.ink/1a2b/script',
    linkvertise: 'https://link-to.net/123/456/dynamic',
    lootlabs: 'https://loot-link.com/s?AbCd',
  }[provider]!;
  await configure(t().app, s, {
    enabled: true,
    minSecondsPerCheckpoint: 0,
    maxKeysPerAddressPerDay: 0,
    provider,
    links: [link],
    providerToken: token,
    ...extra,
  });
  return s;
}

const tokens = (() => {
  let n = 0;
  return () => `${Date.now().toString(36)}-${++n}-aaaa`;
})();

describe('Work.ink', () => {
  let s: SeededService;
  beforeAll(async () => {
    s = await providerService('workink');
  });

  it('sends the user to the seller’s link and accepts a token Work.ink calls valid, deleting it there', async () => {
    const { res, cookie, id } = await start(t().app, s);
    const next = new URL(res.body.data.next);
    expect(next.origin + next.pathname).toBe('https://work.ink/1a2b/script');
    // The link override carries our return address, with Work.ink's {TOKEN} placeholder.
    expect(Buffer.from(next.searchParams.get('sr')!, 'base64url').toString()).toBe(
      `http://keyward.test/key/${s.identifier}/return?session=${id}&token={TOKEN}`,
    );
    const token = tokens();
    fake.workinkTokens.add(token);
    const passed = await checkpoint(t().app, s, id, cookie, { token });
    expect(passed.status).toBe(200);
    expect(passed.body.data.key.key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(fake.workinkTokens.has(token)).toBe(false);
    expect(fake.requests).toContain(`GET /_api/v2/token/isValid/${token}`);
  });

  it('refuses a valid token of someone else’s Work.ink link (its linkId is not one of the seller’s link ids)', async () => {
    const mine = await providerService('workink', { providerToken: '777,10345' });
    const a = await start(t().app, mine);
    const token = tokens();
    fake.workinkTokens.add(token);
    expect((await checkpoint(t().app, mine, a.id, a.cookie, { token })).body.data.key).not.toBeNull();
    const strict = await providerService('workink', { providerToken: '777' });
    const b = await start(t().app, strict);
    const foreign = tokens();
    fake.workinkTokens.add(foreign);
    expect((await checkpoint(t().app, strict, b.id, b.cookie, { token: foreign })).body).toMatchObject({
      code: 'CHECKPOINT_FAILED',
      reason: 'token-invalid',
    });
  });

  it('a setting saved before link ids were required is a clear 502, never a pass for any Work.ink token', async () => {
    const legacy = await providerService('workink');
    await t()
      .ctx.db.updateTable('keySystemSettings')
      .set({ providerTokenSealed: t().ctx.sealer.seal('some-api-token') })
      .where('serviceId', '=', legacy.id)
      .execute();
    const { cookie, id } = await start(t().app, legacy);
    const token = tokens();
    fake.workinkTokens.add(token);
    const res = await checkpoint(t().app, legacy, id, cookie, { token });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    expect(res.body.error).toMatch(/Work\.ink link ids/);
    // Work.ink was not even asked, so the user's token is still good there.
    expect(fake.workinkTokens.has(token)).toBe(true);
  });

  it('without the link override (Work.ink down), the plain link still starts the session', async () => {
    fake.workinkOverrideDown = true;
    try {
      const { res } = await start(t().app, s);
      expect(res.status).toBe(201);
      expect(res.body.data.next).toBe('https://work.ink/1a2b/script');
    } finally {
      fake.workinkOverrideDown = false;
    }
  });

  it('refuses a token Work.ink does not know (token-invalid) and a missing one', async () => {
    const { cookie, id } = await start(t().app, s);
    const bad = await checkpoint(t().app, s, id, cookie, { token: tokens() });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'CHECKPOINT_FAILED', reason: 'token-invalid' });
    expect((await checkpoint(t().app, s, id, cookie)).body.reason).toBe('token-invalid');
  });

  it('refuses a token already spent on this server, on any instance (token-reused)', async () => {
    const other = await anotherInstance(t());
    try {
      const a = await start(t().app, s);
      const b = await start(other, s);
      const token = tokens();
      fake.workinkTokens.add(token);
      expect((await checkpoint(t().app, s, a.id, a.cookie, { token })).status).toBe(200);
      const replay = await checkpoint(other, s, b.id, b.cookie, { token });
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({ code: 'CHECKPOINT_FAILED', reason: 'token-reused' });
    } finally {
      await other.close();
    }
  });

  it('two instances racing with one token: exactly one passes', async () => {
    const other = await anotherInstance(t());
    try {
      const a = await start(t().app, s);
      const b = await start(other, s);
      const token = tokens();
      fake.workinkTokens.add(token);
      const results = await Promise.all([
        checkpoint(t().app, s, a.id, a.cookie, { token }),
        checkpoint(other, s, b.id, b.cookie, { token }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)!.body.reason).toBe('token-reused');
    } finally {
      await other.close();
    }
  });

  it.each([
    ['slow', /could not be reached/],
    ['down', /answered 503/],
    ['garbage', /could not be read/],
  ])('a provider that is %s is a clear 502, never a key, and the token stays usable', async (kind, message) => {
    const { cookie, id } = await start(t().app, s);
    const token = `${kind}-${tokens()}`;
    const res = await checkpoint(t().app, s, id, cookie, { token });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
    expect(res.body.error).toMatch(message);
    expect(res.body.error).toContain('Work.ink');
    const state = await call(t().app, 'GET', `/api/v1/public/key-system/${s.identifier}/sessions/${id}`, { headers: { cookie } });
    expect(state.body.data).toMatchObject({ checkpoint: 0, key: null });
    // The claim on the token was given back, so the user can retry with it.
    expect(
      await t().ctx.db.selectFrom('keySystemTokens').selectAll().where('tokenDigest', '=', digest(token)).executeTakeFirst(),
    ).toBeUndefined();
  });
});

describe('Linkvertise', () => {
  it('puts the return address in a dynamic link and checks the hash with the seller’s token', async () => {
    const s = await providerService('linkvertise');
    const { res, cookie, id } = await start(t().app, s);
    const next = new URL(res.body.data.next);
    expect(next.origin + next.pathname).toBe('https://link-to.net/123/456/dynamic');
    expect(Buffer.from(next.searchParams.get('r')!, 'base64').toString()).toBe(
      `http://keyward.test/key/${s.identifier}/return?session=${id}`,
    );

    const hash = 'a'.repeat(40) + tokens();
    expect((await checkpoint(t().app, s, id, cookie, { token: hash })).body.reason).toBe('token-invalid');
    const good = 'b'.repeat(40) + tokens();
    fake.linkvertiseHashes.add(good);
    const second = await start(t().app, s);
    expect((await checkpoint(t().app, s, second.id, second.cookie, { token: good })).body.data.key).not.toBeNull();
    const third = await start(t().app, s);
    expect((await checkpoint(t().app, s, third.id, third.cookie, { token: good })).body.reason).toBe('token-reused');
  });

  it.each([
    ['slow', /could not be reached/],
    ['down', /answered 503/],
    ['garbage', /could not be read/],
  ])('a Linkvertise that is %s is a clear 502, never a key, and the hash stays usable', async (kind, message) => {
    const s = await providerService('linkvertise');
    const { cookie, id } = await start(t().app, s);
    const hash = `${kind}-${'d'.repeat(40)}${tokens()}`;
    const res = await checkpoint(t().app, s, id, cookie, { token: hash });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
    expect(res.body.error).toMatch(message);
    expect(res.body.error).toContain('Linkvertise');
    const state = await call(t().app, 'GET', `/api/v1/public/key-system/${s.identifier}/sessions/${id}`, { headers: { cookie } });
    expect(state.body.data).toMatchObject({ checkpoint: 0, key: null });
    expect(await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute()).toEqual([]);
    expect(
      await t().ctx.db.selectFrom('keySystemTokens').selectAll().where('tokenDigest', '=', digest(hash)).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('a refused seller token is the provider’s problem (502), not the user’s', async () => {
    const s = await providerService('linkvertise', { providerToken: 'wrong-token' });
    const { cookie, id } = await start(t().app, s);
    const res = await checkpoint(t().app, s, id, cookie, { token: 'c'.repeat(64) });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/Linkvertise API token/);
  });
});

describe('Lootlabs', () => {
  it('hides a one-time token in an encrypted destination per checkpoint and accepts only that token, once', async () => {
    const s = await providerService('lootlabs', { checkpoints: 2, links: ['https://loot-link.com/s?One', 'https://loot-link.com/s?Two'] });
    const { res, cookie, id } = await start(t().app, s);
    const destinationOf = (next: string) => new URL(Buffer.from(new URL(next).searchParams.get('data')!, 'base64url').toString());
    const first = destinationOf(res.body.data.next);
    expect(first.pathname).toBe(`/key/${s.identifier}/return`);
    expect(first.searchParams.get('session')).toBe(id);
    const token = first.searchParams.get('token')!;

    expect((await checkpoint(t().app, s, id, cookie, { token: 'guessed-token' })).body.reason).toBe('token-invalid');
    const passed = await checkpoint(t().app, s, id, cookie, { token });
    expect(passed.body.data).toMatchObject({ checkpoint: 1, key: null });
    expect(new URL(passed.body.data.next).searchParams.get('One')).toBeNull();
    expect((await checkpoint(t().app, s, id, cookie, { token })).body.reason).toBe('token-reused');
    const second = destinationOf(passed.body.data.next).searchParams.get('token')!;
    expect(second).not.toBe(token);
    expect((await checkpoint(t().app, s, id, cookie, { token: second })).body.data.key).not.toBeNull();
  });

  it('Lootlabs down while preparing the next checkpoint: a 502, and the same token passes once it is back', async () => {
    const s = await providerService('lootlabs', { checkpoints: 2, links: ['https://loot-link.com/s?One', 'https://loot-link.com/s?Two'] });
    const { res, cookie, id } = await start(t().app, s);
    const token = new URL(Buffer.from(new URL(res.body.data.next).searchParams.get('data')!, 'base64url').toString()).searchParams.get(
      'token',
    )!;
    fake.lootlabsMode = 'down';
    try {
      const down = await checkpoint(t().app, s, id, cookie, { token });
      expect(down.status).toBe(502);
      expect(down.body.error).toContain('Lootlabs');
    } finally {
      fake.lootlabsMode = 'ok';
    }
    expect((await checkpoint(t().app, s, id, cookie, { token })).body.data).toMatchObject({ checkpoint: 1, key: null });
  });

  it.each([
    ['down', /answered 502/],
    ['slow', /could not be reached/],
    ['garbage', /could not be read/],
  ] as const)('cannot start a session while Lootlabs is %s (502 naming it), and makes no session', async (mode, message) => {
    const s = await providerService('lootlabs');
    fake.lootlabsMode = mode;
    try {
      const { res } = await start(t().app, s);
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
      expect(res.body.error).toMatch(message);
      expect(res.body.error).toContain('Lootlabs');
    } finally {
      fake.lootlabsMode = 'ok';
    }
    expect(await t().ctx.db.selectFrom('keySystemSessions').selectAll().where('serviceId', '=', s.id).execute()).toEqual([]);
  });

  it('a seller token Lootlabs refuses ({ type: "error" }) is a 502 hinting at the token', async () => {
    const s = await providerService('lootlabs', { providerToken: 'not-the-lootlabs-token' });
    const { res } = await start(t().app, s);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/Lootlabs API token/);
  });
});

describe('outbound rules (the SSRF-safe client every provider call goes through)', () => {
  /** Points a provider back at its real public base for one test, with DNS answering `addresses`. */
  async function withProviderDns<T>(
    provider: 'workinkApiUrl' | 'linkvertiseApiUrl',
    base: string,
    addresses: string[],
    body: (lookups: () => string[]) => Promise<T>,
  ): Promise<T> {
    const config = t().ctx.config.keySystem;
    const saved = config[provider];
    const asked: string[] = [];
    config[provider] = base;
    providerDns.resolve = async (hostname) => {
      asked.push(hostname);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    try {
      return await body(() => asked);
    } finally {
      config[provider] = saved;
      delete providerDns.resolve;
    }
  }

  it.each([
    ['link-local (cloud metadata)', ['169.254.169.254']],
    ['private 10/8', ['10.0.0.7']],
    ['loopback', ['127.0.0.1']],
    ['IPv6 unique-local', ['fd00:ec2::254']],
    ['a public address mixed with a private one', ['93.184.216.34', '192.168.1.1']],
  ])('work.ink resolving to %s: refused before connecting, a 502, no key, token given back', async (_label, addresses) => {
    const s = await providerService('workink');
    const { cookie, id } = await start(t().app, s);
    const token = tokens();
    fake.workinkTokens.add(token);
    await withProviderDns('workinkApiUrl', 'https://work.ink', addresses, async (lookups) => {
      const before = fake.requests.length;
      const res = await checkpoint(t().app, s, id, cookie, { token });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
      // Refused by the outbound rules, not a failed connection (which would read "could not be reached").
      expect(res.body.error).toMatch(/^Work\.ink cannot be called from this server \(its address is not allowed\)/);
      // The name was looked up (the check ran on its answer) and nothing was sent anywhere.
      expect(lookups()).toContain('work.ink');
      expect(fake.requests.length).toBe(before);
    });
    expect(await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute()).toEqual([]);
    expect(
      await t().ctx.db.selectFrom('keySystemTokens').selectAll().where('tokenDigest', '=', digest(token)).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('publisher.linkvertise.com resolving to the metadata address is refused the same way', async () => {
    const s = await providerService('linkvertise');
    const { cookie, id } = await start(t().app, s);
    const hash = 'e'.repeat(40) + tokens();
    fake.linkvertiseHashes.add(hash);
    await withProviderDns('linkvertiseApiUrl', 'https://publisher.linkvertise.com', ['169.254.169.254'], async (lookups) => {
      const before = fake.requests.length;
      const res = await checkpoint(t().app, s, id, cookie, { token: hash });
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
      expect(res.body.error).toMatch(/^Linkvertise cannot be called from this server/);
      expect(lookups()).toEqual(['publisher.linkvertise.com']);
      expect(fake.requests.length).toBe(before);
    });
  });

  it('an answer over 16 KiB is cut at the cap and read as unreadable: a 502, never a key', async () => {
    const s = await providerService('workink');
    const { cookie, id } = await start(t().app, s);
    // The fake says "valid, link 10345" (the seller's link) and pads the JSON to 64 KiB: uncapped, it would pass.
    const res = await checkpoint(t().app, s, id, cookie, { token: `huge-${tokens()}` });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    expect(res.body.error).toMatch(/could not be read/);
    expect(await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute()).toEqual([]);
  });
});
