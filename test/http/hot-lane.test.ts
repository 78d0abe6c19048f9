import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import injectRequest, { type InjectOptions, type Response } from 'light-my-request';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { TEST_SECRET, useTestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { openSession, sessionsOf } from '../sessions/session-helpers.ts';
import { uploadScript } from '../scripts/script-helpers.ts';

// The hot lane (plugins/hot-lane.ts) answers heartbeats and validations in front of Fastify. Whatever it answers,
// Fastify's route alone must answer the same; whatever it leaves, it must not have touched.
const BUDGET = 40;
const app = useTestApp({ RATE_LIMIT_CLIENT_PER_MINUTE: String(BUDGET) });

// Differ by request or by the moment: the id, the date, and the budget (the second request spent one more).
const PER_REQUEST = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'connection', 'keep-alive']);
const comparable = (response: Response) => {
  const { requestId: _id, ...body } = response.json() as Record<string, unknown>;
  const headers = Object.entries(response.headers).filter(([name]) => !PER_REQUEST.has(name));
  return { status: response.statusCode, headers: Object.fromEntries(headers.sort(([a], [b]) => a.localeCompare(b))), body };
};

let address = 0;
/** The same request answered through the server's listener (the lane first) and by Fastify's route alone. */
async function both(sent: InjectOptions) {
  const { app: a } = app();
  // Each case its own address, so no case spends another's budget.
  const options = { remoteAddress: `10.9.0.${++address}`, ...sent };
  const before = a.hotLane.answered;
  const lane = await injectRequest(a.hotLane.dispatch, options);
  const took = a.hotLane.answered - before;
  const fastify = await injectRequest(a.hotLane.behind, options);
  return { lane, fastify, took };
}

/** Asserts both answered alike, and that the lane's spend and Fastify's came from one budget. */
function expectAlike(lane: Response, fastify: Response) {
  expect(comparable(lane)).toEqual(comparable(fastify));
  expect(lane.headers['x-request-id'] === undefined).toBe(fastify.headers['x-request-id'] === undefined);
  if (lane.headers['ratelimit-remaining'] !== undefined)
    expect(Number(fastify.headers['ratelimit-remaining'])).toBe(Number(lane.headers['ratelimit-remaining']) - 1);
}

async function liveSession(): Promise<{ s: SeededService; key: string; sessionId: string }> {
  const t = app();
  const s = await seedService(t.ctx);
  const [key] = await generateKeys(t.app, s.serviceKey);
  const sessionId = await openSession(t.app, s, { key, hwid: 'pc-lane' });
  return { s, key: key!, sessionId };
}

describe('heartbeats', () => {
  it('a live session: the lane answers 200 as the route does, by POST and by GET, from one budget', async () => {
    const { s, sessionId } = await liveSession();
    for (const method of ['POST', 'GET'] as const) {
      const url = `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat`;
      const { lane, fastify, took } = await both({
        method,
        url,
        ...(method === 'POST' ? { payload: '{}', headers: { 'content-type': 'application/json' } } : {}),
      });
      expect(took).toBe(1);
      expect(lane.statusCode).toBe(200);
      expect(lane.json().data.alive).toBe(true);
      expect(lane.headers['ratelimit-limit']).toBe(String(BUDGET));
      expectAlike(lane, fastify);
    }
  });

  it('an ended session and an unknown one: the same 410 with its reason', async () => {
    const t = app();
    const { s, key, sessionId } = await liveSession();
    expect((await sessionsOf(s).kill(t.app, { key })).status).toBe(200);
    for (const id of [sessionId, 'no-such-session-0000000000']) {
      const { lane, fastify, took } = await both({ method: 'POST', url: `/api/v1/public/sessions/${s.id}/${id}/heartbeat` });
      expect(took).toBe(1);
      expect(lane.statusCode).toBe(410);
      expect(lane.json().code).toBe('SESSION_ENDED');
      expectAlike(lane, fastify);
    }
  });

  it('leaves to Fastify, untouched, what is not the common case', async () => {
    const { s, sessionId } = await liveSession();
    const cases = [
      `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat/`, // trailing slash
      `/api/v1/public/sessions/${s.id}/${encodeURIComponent(`${sessionId}\u0000`)}/heartbeat`, // percent-encoded
      `/api/v1/public/sessions/${'s'.repeat(65)}/${sessionId}/heartbeat`, // refused by the schema
      `/api/v1/public/sessions/${s.id}/${'x'.repeat(101)}/heartbeat`, // longer than the router takes
      `/api/v1/public/sessions/no-such-service/${sessionId}/heartbeat`, // not cached: looked up by the route
    ];
    for (const url of cases) {
      const { lane, fastify, took } = await both({ method: 'POST', url });
      expect(took, url).toBe(0);
      expect(lane.statusCode, url).toBe(fastify.statusCode);
      expectAlike(lane, fastify);
    }
    const head = await both({ method: 'HEAD', url: `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat` });
    expect(head.took).toBe(0);
  });

  it('a spent budget: the same 429, and the lane counted every call it answered', async () => {
    const { s, sessionId } = await liveSession();
    const { app: a } = app();
    const url = `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat`;
    const remoteAddress = '10.9.1.1';
    for (let i = 0; i < BUDGET; i++)
      expect((await injectRequest(a.hotLane.dispatch, { method: 'POST', url, remoteAddress })).statusCode).toBe(200);
    const lane = await injectRequest(a.hotLane.dispatch, { method: 'POST', url, remoteAddress });
    const fastify = await injectRequest(a.hotLane.behind, { method: 'POST', url, remoteAddress });
    for (const answer of [lane, fastify]) {
      expect(answer.statusCode).toBe(429);
      expect(answer.json().code).toBe('RATE_LIMITED');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(answer.headers['ratelimit-remaining']).toBe('0');
    }
    expect(Object.keys(lane.headers).sort()).toEqual(Object.keys(fastify.headers).sort());
  });
});

describe('validations', () => {
  const validate = (s: SeededService, query: Record<string, string>) =>
    `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, ...query })}`;
  /** A service with one key, looked up once by the route: from then on it is cached and the lane takes its calls. */
  const cachedService = async () => {
    const t = app();
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    await call(t.app, 'GET', validate(s, { key: 'nope', hwid: 'pc-1' }));
    return { t, s, key };
  };

  it('valid, incorrect and HWID-locked keys: the lane answers the verdict as the route does', async () => {
    const { t, s, key } = await cachedService();
    const queries: Array<Record<string, string>> = [
      { key: key!, hwid: 'pc-1' },
      { key: key!, hwid: 'pc-1', executor: 'Wave' },
      { key: 'KEY-NOT-THERE', hwid: 'pc-1' },
      { key: key!, hwid: 'pc-2' },
      { key: key! },
    ];
    for (const query of queries) {
      const { lane, fastify, took } = await both({ method: 'GET', url: validate(s, query) });
      expect(took, JSON.stringify(query)).toBe(1);
      expect(lane.statusCode).toBe(200);
      expectAlike(lane, fastify);
    }
    const bound = await t.ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(bound.hwid).toBe('pc-1');
  });

  it('a signed validation: the lane answers it signed, as the route does', async () => {
    const { s, key } = await cachedService();
    const { lane, fastify, took } = await both({
      method: 'GET',
      url: validate(s, { key: key!, hwid: 'pc-1', nonce: 'abcdefabcdefabcdef' }),
    });
    expect(took).toBe(1);
    expect(lane.statusCode).toBe(200);
    expect(lane.json().data.signature).toEqual(expect.any(String));
    // The time and the signature over it differ by the moment; the fields do not.
    expect(Object.keys(lane.json().data).sort()).toEqual(Object.keys(fastify.json().data).sort());
  });

  it('leaves a refused query and text the databases cannot store to the route', async () => {
    const { t, s, key } = await cachedService();
    const queries: Array<Record<string, string>> = [
      { key: key!, hwid: 'x'.repeat(300) },
      { key: key!, hwid: 'pc\u0000' },
    ];
    for (const query of queries) {
      const { lane, fastify, took } = await both({ method: 'GET', url: validate(s, query) });
      expect(took, JSON.stringify(query)).toBe(0);
      expect(lane.statusCode).toBe(400);
      expectAlike(lane, fastify);
    }
    const row = await t.ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', key!).executeTakeFirst();
    expect(row?.hwid ?? null).toBe(null);
  });
});

describe('fetches', () => {
  const CODE = 'print("the protected code") -- ' + 'x'.repeat(2000);
  const fetchUrl = (scriptId: string, query: Record<string, string>) => `/api/v1/vss/fetch/${scriptId}?${new URLSearchParams(query)}`;
  /** Status, headers (but the per-request ones) and the exact bytes: the fetch answers text, code and gzip. */
  const rawComparable = (response: Response) => {
    const headers = Object.entries(response.headers).filter(([name]) => !PER_REQUEST.has(name));
    return {
      status: response.statusCode,
      headers: Object.fromEntries(headers.sort(([a], [b]) => a.localeCompare(b))),
      body: response.rawPayload.toString('base64'),
    };
  };
  /** A ready script with one key, fetched once by the route: from then on it is cached and the lane takes its calls. */
  const cachedScript = async (extra: Record<string, unknown> = {}) => {
    const t = app();
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const script = await uploadScript(t.app, s, { name: 'lane', code: CODE, ...extra });
    await t.app.inject({ method: 'GET', url: fetchUrl(script.id, { key: 'nope', hwid: 'pc-1' }) });
    return { t, s, key: key!, script };
  };

  it('the code, gzip, a 304 and a refusal: the lane answers the same bytes and headers as the route', async () => {
    const { t, key, script } = await cachedScript();
    const plain = await both({ method: 'GET', url: fetchUrl(script.id, { key, hwid: 'pc-1' }) });
    expect(plain.took).toBe(1);
    expect(plain.lane.statusCode).toBe(200);
    expect(plain.lane.body).toBe(CODE);
    expect(plain.lane.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(rawComparable(plain.lane)).toEqual(rawComparable(plain.fastify));
    // One budget: the lane spent from it first, then the route.
    expect(plain.lane.headers['ratelimit-limit']).toBe(String(BUDGET));
    expect(Number(plain.fastify.headers['ratelimit-remaining'])).toBe(Number(plain.lane.headers['ratelimit-remaining']) - 1);
    const etag = String(plain.lane.headers.etag);

    const cases: Array<{ query: Record<string, string>; headers?: Record<string, string>; status: number }> = [
      { query: { key, hwid: 'pc-1' }, headers: { 'accept-encoding': 'gzip, br' }, status: 200 },
      { query: { key, hwid: 'pc-1' }, headers: { 'if-none-match': etag }, status: 304 },
      { query: { key, hwid: 'pc-1', executor: 'Wave', v: '2' }, status: 200 },
      { query: { key, hwid: 'pc-other' }, status: 200 }, // HWID locked: Lua that raises the code
      { query: { key: 'KEY-NOT-THERE', hwid: 'pc-1' }, status: 200 },
      { query: { key }, headers: { 'syn-fingerprint': 'pc-1' }, status: 200 },
    ];
    for (const { query, headers, status } of cases) {
      const { lane, fastify, took } = await both({ method: 'GET', url: fetchUrl(script.id, query), ...(headers && { headers }) });
      const label = JSON.stringify({ query, headers });
      expect(took, label).toBe(1);
      expect(lane.statusCode, label).toBe(status);
      expect(rawComparable(lane), label).toEqual(rawComparable(fastify));
    }
    const gzipped = await both({ method: 'GET', url: fetchUrl(script.id, { key, hwid: 'pc-1' }), headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.lane.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.lane.rawPayload).toString()).toBe(CODE);
    const locked = await both({ method: 'GET', url: fetchUrl(script.id, { key, hwid: 'pc-other' }) });
    expect(locked.lane.body).toContain('KEY_HWID_LOCKED');
    expect(locked.lane.headers['cache-control']).toBe('no-store');
    const row = await t.ctx.db.selectFrom('activeKeys').select(['hwid', 'executions']).where('key', '=', key).executeTakeFirstOrThrow();
    expect(row.hwid).toBe('pc-1');
  });

  it('globals=1: the same LRM_ prefix before the code, never cached', async () => {
    const { key, script } = await cachedScript();
    const { lane, fastify, took } = await both({ method: 'GET', url: fetchUrl(script.id, { key, hwid: 'pc-1', globals: '1' }) });
    expect(took).toBe(1);
    expect(lane.statusCode).toBe(200);
    expect(lane.body).toContain('LRM_IsUserPremium');
    expect(lane.body.endsWith(CODE)).toBe(true);
    expect(lane.headers['cache-control']).toBe('no-store');
    // The run counts differ by one (the lane's fetch counted first); the rest is the same.
    const strip = (text: string) => text.replace(/LRM_TotalExecutions\s*=\s*\d+/, '');
    expect(strip(lane.body)).toBe(strip(fastify.body));
    expect(lane.headers['content-length']).toBe(String(lane.rawPayload.length));
  });

  it('leaves an unknown script, a script not yet cached and a refused query to the route', async () => {
    const t = app();
    const s = await seedService(t.ctx);
    const script = await uploadScript(t.app, s, { name: 'not-yet', code: CODE });
    const cases = [
      fetchUrl('3f2504e0-4f89-11d3-9a0c-0305e82c3301', { key: 'k', hwid: 'h' }),
      fetchUrl('not-a-uuid', { key: 'k', hwid: 'h' }),
      fetchUrl(script.id, { key: 'k', hwid: 'x'.repeat(300) }),
    ];
    for (const url of cases) {
      const { lane, fastify, took } = await both({ method: 'GET', url });
      expect(took, url).toBe(0);
      expect(lane.statusCode, url).toBe(fastify.statusCode);
    }
  });

  it('a script too large to keep in memory: streamed whole by the lane as by the route', async () => {
    const database = await createTestDatabase();
    const config = loadConfig({ KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test', SCRIPT_CACHE_MB: '0', ...database.env });
    const streaming = await buildApp({ config, database: database.handle, logger: false });
    try {
      await streaming.ready();
      const s = await seedService(streaming.ctx);
      const [key] = await generateKeys(streaming, s.serviceKey);
      const code = '-- ' + 'ü日'.repeat(200_000) + '\nprint("end")';
      const script = await uploadScript(streaming, s, { name: 'large', code });
      await streaming.inject({ method: 'GET', url: fetchUrl(script.id, { key: 'nope', hwid: 'h' }) });
      const queries: Array<Record<string, string>> = [
        { key: key!, hwid: 'h' },
        { key: key!, hwid: 'h', globals: '1' },
      ];
      for (const query of queries) {
        const before = streaming.hotLane.answered;
        const lane = await injectRequest(streaming.hotLane.dispatch, { method: 'GET', url: fetchUrl(script.id, query) });
        expect(streaming.hotLane.answered - before).toBe(1);
        expect(lane.statusCode).toBe(200);
        expect(lane.body.endsWith(code)).toBe(true);
        expect(Number(lane.headers['content-length'])).toBe(lane.rawPayload.length);
      }
    } finally {
      await streaming.close();
      await database.drop();
    }
  });
});

it('stays out while request lines are logged: Fastify writes them', async () => {
  const database = await createTestDatabase();
  const config = loadConfig({ KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test', ...database.env });
  config.migrateOnStart = false;
  const lines: string[] = [];
  const logged = await buildApp({
    config,
    database: database.handle,
    logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
  });
  try {
    await logged.ready();
    const s = await seedService(logged.ctx);
    const [key] = await generateKeys(logged, s.serviceKey);
    const sessionId = await openSession(logged, s, { key, hwid: 'pc-log' });
    const url = `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat`;
    const answer = await injectRequest(logged.hotLane.dispatch, { method: 'POST', url });
    expect(answer.statusCode).toBe(200);
    expect(logged.hotLane.answered).toBe(0);
    expect(lines.some((line) => line.includes('request completed') && line.includes(answer.headers['x-request-id'] as string))).toBe(true);
  } finally {
    await logged.close();
    await database.drop();
  }
});

/** The answers that came back on a raw connection, as status and body, once `count` of them are complete. */
function answersOn(socket: ReturnType<typeof connect>) {
  let text = '';
  let wanted = 0;
  let wake = () => {};
  const parsed = () => {
    const out: Array<{ status: number; body: string }> = [];
    let rest = text;
    while (rest.startsWith('HTTP/1.1 ')) {
      const end = rest.indexOf('\r\n\r\n');
      if (end < 0) break;
      const length = Number(/content-length: (\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
      if (rest.length < end + 4 + length) break;
      out.push({ status: Number(rest.slice(9, 12)), body: rest.slice(end + 4, end + 4 + length) });
      rest = rest.slice(end + 4 + length);
    }
    return out;
  };
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    if (parsed().length >= wanted) wake();
  });
  return (count: number) =>
    new Promise<Array<{ status: number; body: string }>>((resolve) => {
      wanted = count;
      wake = () => resolve(parsed());
      if (parsed().length >= count) wake();
    });
}

it('drops a heartbeat’s body unread however it arrives, and answers the next request on the kept-alive connection', async () => {
  const { s, sessionId } = await liveSession();
  const before = app().app.hotLane.answered;
  const server = createServer(app().app.hotLane.dispatch);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  try {
    const answers = answersOn(socket);
    const head = (method: string, headers = '') =>
      `${method} /api/v1/public/sessions/${s.id}/${sessionId}/heartbeat HTTP/1.1\r\nhost: keyward.test\r\n${headers}\r\n`;
    // A body that looks like a request: read as one, it would be answered.
    const sneaky = `GET /api/v1/health HTTP/1.1\r\nhost: keyward.test\r\n\r\n${'x'.repeat(70_000)}`;
    socket.write(head('POST', `content-type: application/json\r\ncontent-length: ${sneaky.length}\r\n`) + sneaky);
    expect((await answers(1)).map((a) => a.status)).toEqual([200]);
    // Answered at its headers, before its body is sent.
    socket.write(head('POST', 'content-type: application/json\r\ncontent-length: 2\r\n'));
    expect((await answers(2)).map((a) => a.status)).toEqual([200, 200]);
    socket.write('{}');
    socket.write(head('POST', 'transfer-encoding: chunked\r\n') + '2\r\n{}\r\n0\r\n\r\n' + head('GET'));
    const all = await answers(4);
    expect(all.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const answer of all) expect(JSON.parse(answer.body).data.alive).toBe(true);
    expect(app().app.hotLane.answered - before).toBe(4);
  } finally {
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
