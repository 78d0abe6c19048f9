import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { digest } from '../../src/lib/secrets.ts';
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
  const token = provider === 'linkvertise' ? fake.linkvertiseToken : provider === 'lootlabs' ? fake.lootlabsToken : 'workink-seller';
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

  it('with link ids as the token setting, refuses a valid token of someone else’s Work.ink link', async () => {
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
    fake.lootlabsDown = true;
    try {
      const down = await checkpoint(t().app, s, id, cookie, { token });
      expect(down.status).toBe(502);
      expect(down.body.error).toContain('Lootlabs');
    } finally {
      fake.lootlabsDown = false;
    }
    expect((await checkpoint(t().app, s, id, cookie, { token })).body.data).toMatchObject({ checkpoint: 1, key: null });
  });

  it('cannot start a session while Lootlabs is down (502), and makes no session', async () => {
    const s = await providerService('lootlabs');
    fake.lootlabsDown = true;
    try {
      const { res } = await start(t().app, s);
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
    } finally {
      fake.lootlabsDown = false;
    }
    expect(await t().ctx.db.selectFrom('keySystemSessions').selectAll().where('serviceId', '=', s.id).execute()).toEqual([]);
  });
});

describe('outbound rules', () => {
  it('never calls a provider base that is not the provider’s own or an explicit override', async () => {
    const s = await providerService('workink');
    const saved = t().ctx.config.keySystem.workinkApiUrl;
    // What an operator cannot do: the default base is work.ink; a loopback base only works as an explicit override.
    t().ctx.config.keySystem.workinkApiUrl = 'http://169.254.169.254';
    try {
      const { cookie, id } = await start(t().app, s);
      const before = fake.requests.length;
      const res = await checkpoint(t().app, s, id, cookie, { token: tokens() });
      expect(res.status).toBe(502);
      expect(fake.requests.length).toBe(before);
    } finally {
      t().ctx.config.keySystem.workinkApiUrl = saved;
    }
  });
});
