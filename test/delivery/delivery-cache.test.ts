import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { SCRIPTS, serviceExecutions, uploadScript } from '../scripts/script-helpers.ts';

const t = useTestApp();
let second: App;
let uncached: App;

beforeAll(async () => {
  second = await anotherInstance(t());
  // No cache at all: every fetch streams from the database, as a script over the budget does.
  uncached = await anotherInstance(t(), { ...t().config, scriptCacheBytes: 0 });
});
afterAll(async () => {
  await second?.close();
  await uncached?.close();
});

const CODE = 'print("CACHED-DELIVERY-5d1e") -- ' + 'padding '.repeat(2000);

async function setup(code = CODE) {
  const s = await seedService(t().ctx);
  const script = await uploadScript(t().app, s, { name: 'game', code });
  const [key] = await generateKeys(t().app, s.serviceKey);
  return { s, script, key: key! };
}

function fetchOn(app: App, scriptId: string, key: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${scriptId}?key=${encodeURIComponent(key)}&hwid=pc-1`, headers });
}

/** Polls until the check passes: the other instance learns of a change asynchronously (NOTIFY). */
async function eventually(check: () => Promise<boolean>, deadlineMs = 1000) {
  const until = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not seen within ${deadlineMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('conditional fetch (ETag / If-None-Match)', () => {
  it('answers 304 without the code when the client holds the current version, and still counts the execution', async () => {
    const { s, script, key } = await setup();
    const first = await fetchOn(t().app, script.id, key);
    expect(first.statusCode).toBe(200);
    expect(first.body).toBe(CODE);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');

    const before = await serviceExecutions(t().app, s);
    const again = await fetchOn(t().app, script.id, key, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(await serviceExecutions(t().app, s)).toBe(before + 1);
    // Any instance agrees on the tag: it names the stored code, not the process.
    expect((await fetchOn(second, script.id, key, { 'if-none-match': `W/${etag}, "other"` })).statusCode).toBe(304);
    expect((await fetchOn(uncached, script.id, key, { 'if-none-match': etag })).statusCode).toBe(304);
  });

  it('answers the full code when the tag is another version', async () => {
    const { script, key } = await setup();
    const res = await fetchOn(t().app, script.id, key, { 'if-none-match': '"3f2504e0-4f89-11d3-9a0c-0305e82c3301"' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(CODE);
  });

  it('never answers 304 to a refused key: the refusal is sent, with no ETag', async () => {
    const { s, script, key } = await setup();
    const etag = String((await fetchOn(t().app, script.id, key)).headers.etag);
    const before = await serviceExecutions(t().app, s);
    const res = await fetchOn(t().app, script.id, 'not-a-real-key', { 'if-none-match': etag });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatch(/^error\("Keyward: KEY_/);
    expect(await serviceExecutions(t().app, s)).toBe(before);
  });
});

describe('compression', () => {
  it('sends gzip to a client that accepts it, with its own tag, and the same code once decompressed', async () => {
    const { script, key } = await setup();
    const res = await fetchOn(t().app, script.id, key, { 'accept-encoding': 'br, gzip;q=0.8' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('accept-encoding');
    expect(res.headers.etag).toMatch(/-gz"$/);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(CODE) / 10);
    expect(gunzipSync(res.rawPayload).toString('utf8')).toBe(CODE);
    // The gzip tag revalidates too.
    expect((await fetchOn(t().app, script.id, key, { 'if-none-match': String(res.headers.etag) })).statusCode).toBe(304);
  });

  it('sends the code as it is to a client that does not ask for gzip', async () => {
    const { script, key } = await setup();
    const res = await fetchOn(t().app, script.id, key);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(CODE));
  });

  it('streams code it does not cache uncompressed and whole, multi-byte characters included', async () => {
    const code = 'print("ünïcødé ✓ 🎮") -- ' + 'x'.repeat(3000);
    const { script, key } = await setup(code);
    const res = await fetchOn(uncached, script.id, key, { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(code);
  });
});

describe('the cache on every instance', () => {
  async function update(s: SeededService, scriptId: string, code: string) {
    const res = await call(t().app, 'PUT', `${SCRIPTS}/${scriptId}`, { key: s.serviceKey, body: { code } });
    expect(res.status).toBe(200);
  }

  it('serves new code on another instance once the code is updated', async () => {
    const { s, script, key } = await setup();
    expect((await fetchOn(second, script.id, key)).body).toBe(CODE);
    const oldTag = String((await fetchOn(second, script.id, key)).headers.etag);
    await update(s, script.id, 'print("VERSION-TWO")');
    // The updating instance drops its copy before answering.
    expect((await fetchOn(t().app, script.id, key)).body).toBe('print("VERSION-TWO")');
    await eventually(async () => (await fetchOn(second, script.id, key)).body === 'print("VERSION-TWO")');
    const fresh = await fetchOn(second, script.id, key, { 'if-none-match': oldTag });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers.etag).not.toBe(oldTag);
  });

  it('stops serving a deleted script on another instance', async () => {
    const { s, script, key } = await setup();
    expect((await fetchOn(second, script.id, key)).statusCode).toBe(200);
    const res = await call(t().app, 'DELETE', `${SCRIPTS}/${script.id}`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    await eventually(async () => (await fetchOn(second, script.id, key)).body.includes('SCRIPT_NOT_FOUND'));
    expect((await fetchOn(second, script.id, key)).statusCode).toBe(404);
  });
});
