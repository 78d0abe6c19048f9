import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { fetchScript, serviceExecutions, uploadScript } from '../scripts/script-helpers.ts';

const t = useTestApp();
const SECRET_CODE = 'print("DELIVERED-7f3a") -- the seller\'s code';

async function setup() {
  const s = await seedService(t().ctx);
  const script = await uploadScript(t().app, s, { name: 'game', code: SECRET_CODE });
  return { s, script };
}

async function keyRow(key: string) {
  return t().ctx.db.selectFrom('activeKeys').selectAll().where('key', '=', key).executeTakeFirst();
}

describe('GET /api/v1/vss/loader/:scriptId', () => {
  it('answers Lua that reads script_key, uses gethwid and fetches this script', async () => {
    const { script } = await setup();
    const res = await t().app.inject({ method: 'GET', url: `/api/v1/vss/loader/${script.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toContain(`"http://keyward.test/api/v1/vss/fetch/${script.id}"`);
    expect(res.body).toContain('script_key');
    expect(res.body).toContain('gethwid');
    expect(res.body).not.toContain('DELIVERED-7f3a');
  });

  it('answers a Lua error for an unknown script', async () => {
    for (const id of ['3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'not-a-uuid']) {
      const res = await t().app.inject({ method: 'GET', url: `/api/v1/vss/loader/${id}` });
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('SCRIPT_NOT_FOUND');
    }
  });
});

describe('GET /api/v1/vss/fetch/:scriptId', () => {
  it('answers the exact code to a valid key and counts one execution for the service and the key', async () => {
    const { s, script } = await setup();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const before = await serviceExecutions(t().app, s);
    const res = await fetchScript(t().app, script.id, { key: key!, hwid: 'pc-1' });
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe(SECRET_CODE);
    expect(await serviceExecutions(t().app, s)).toBe(before + 1);
    expect(await keyRow(key!)).toMatchObject({ hwid: 'pc-1', executions: 1 });
    await fetchScript(t().app, script.id, { key: key!, hwid: 'pc-1' });
    expect(await serviceExecutions(t().app, s)).toBe(before + 2);
  });

  it('takes the HWID from an executor fingerprint header when the query has none', async () => {
    const { s, script } = await setup();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await fetchScript(t().app, script.id, { key: key! }, { 'syn-fingerprint': 'fp-header-1' });
    expect(res.body).toBe(SECRET_CODE);
    expect((await keyRow(key!))?.hwid).toBe('fp-header-1');
  });

  it('serves a keyless (whitelisted) HWID without a key', async () => {
    const { s, script } = await setup();
    await call(t().app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid: 'free-pc' } });
    const before = await serviceExecutions(t().app, s);
    const res = await fetchScript(t().app, script.id, { key: '' }, { 'krnl-hwid': 'free-pc' });
    expect(res.body).toBe(SECRET_CODE);
    expect(await serviceExecutions(t().app, s)).toBe(before + 1);
  });

  async function expectRefused(scriptId: string, query: Record<string, string>, code: string, s: Awaited<ReturnType<typeof setup>>['s']) {
    const before = await serviceExecutions(t().app, s);
    const res = await fetchScript(t().app, scriptId, query);
    expect(res.status).toBe(200);
    expect(res.body).toMatch(new RegExp(`^error\\("Keyward: ${code}: [^"]*", 0\\)\\n$`));
    expect(res.body).not.toContain('DELIVERED-7f3a');
    expect(await serviceExecutions(t().app, s)).toBe(before);
  }

  it('refuses an unknown key with Lua raising KEY_INCORRECT and counts nothing', async () => {
    const { s, script } = await setup();
    await expectRefused(script.id, { key: 'nope', hwid: 'pc' }, 'KEY_INCORRECT', s);
    await expectRefused(script.id, { hwid: 'pc' }, 'KEY_INCORRECT', s);
  });

  it('refuses a missing HWID, another HWID, an expired, a banned and a paused key', async () => {
    const { s, script } = await setup();
    const [bound, expiring, banned, paused] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, count: 4 });
    await expectRefused(script.id, { key: bound! }, 'HWID_REQUIRED', s);
    expect((await fetchScript(t().app, script.id, { key: bound!, hwid: 'owner' })).body).toBe(SECRET_CODE);
    await expectRefused(script.id, { key: bound!, hwid: 'thief' }, 'KEY_HWID_LOCKED', s);

    for (const key of [banned!, paused!]) await fetchScript(t().app, script.id, { key, hwid: 'pc' });
    await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key: banned, status: 'banned' } });
    await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key: paused, status: 'paused' } });
    await expectRefused(script.id, { key: banned!, hwid: 'pc' }, 'KEY_BANNED', s);
    await expectRefused(script.id, { key: paused!, hwid: 'pc' }, 'KEY_PAUSED', s);

    t().clock.advance(2 * 86_400_000);
    await expectRefused(script.id, { key: expiring!, hwid: 'pc' }, 'KEY_EXPIRED', s);
  });

  it('refuses a blacklisted HWID even with a valid key', async () => {
    const { s, script } = await setup();
    const [key] = await generateKeys(t().app, s.serviceKey);
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'cheater', reason: 'abuse' } });
    await expectRefused(script.id, { key: key!, hwid: 'cheater' }, 'HWID_BLACKLISTED', s);
  });

  it("does not serve a script to another service's key", async () => {
    const { s, script } = await setup();
    const other = await seedService(t().ctx);
    const [foreign] = await generateKeys(t().app, other.serviceKey);
    await expectRefused(script.id, { key: foreign!, hwid: 'pc' }, 'KEY_INCORRECT', s);
  });

  it('answers a Lua error for an unknown script and 400 for an oversize parameter', async () => {
    const res = await fetchScript(t().app, '3f2504e0-4f89-11d3-9a0c-0305e82c3301', { key: 'k', hwid: 'h' });
    expect(res.status).toBe(404);
    expect(res.body).toContain('SCRIPT_NOT_FOUND');
    const { script } = await setup();
    const long = await fetchScript(t().app, script.id, { key: 'k'.repeat(129), hwid: 'h' });
    expect(long.status).toBe(400);
  });

  it('ignores unknown query fields, as executors add their own', async () => {
    const { s, script } = await setup();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await fetchScript(t().app, script.id, { key: key!, hwid: 'pc', executor: 'x', v: '2' });
    expect(res.body).toBe(SECRET_CODE);
  });

  it('streams a large script intact (many chunks, multi-byte characters on the boundaries)', async () => {
    const s = await seedService(t().ctx);
    const code = '-- ' + 'ü日'.repeat(700_000) + '\nprint("end")';
    const script = await uploadScript(t().app, s, { name: 'large', code });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await t().app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${script.id}?key=${key}&hwid=h` });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(code));
    expect(res.body).toBe(code);
  });
});
