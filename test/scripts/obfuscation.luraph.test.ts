import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { generateKeys, seedService } from '../helpers/seed.ts';
import { fetchScript, uploadScript } from './script-helpers.ts';

/** A stand-in for Luraph's job API on loopback, shaped like the official SDK's calls. */
type Mode = 'ok' | 'bad-key' | 'reject-script' | 'job-error' | 'download-fails';
let mode: Mode = 'ok';
const seen: Array<{ method: string; path: string; apiKey: string | undefined; body?: Record<string, unknown> }> = [];
let statusCalls = 0;
const jobs = new Map<string, string>();

async function readJson(request: IncomingMessage) {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return parts.length ? (JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>) : undefined;
}

const fake: Server = createServer(async (request, response) => {
  const path = request.url ?? '';
  const body = request.method === 'POST' ? await readJson(request) : undefined;
  seen.push({ method: request.method ?? '', path, apiKey: request.headers['luraph-api-key'] as string | undefined, body });
  const json = (status: number, data: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(data));
  if (request.headers['luraph-api-key'] !== 'lph-test-key' || mode === 'bad-key') {
    return json(401, { errors: [{ message: 'Invalid API key' }] });
  }
  if (path === '/v1/obfuscate/nodes') return json(200, { nodes: { 'node-a': { cpuUsage: 1, options: {} } }, recommendedId: 'node-a' });
  if (path === '/v1/obfuscate/new' && request.method === 'POST') {
    if (mode === 'reject-script') return json(400, { errors: [{ param: 'script', message: 'unexpected symbol near line 1' }] });
    const id = `job-${jobs.size + 1}`;
    jobs.set(id, Buffer.from(String(body?.script), 'base64').toString('utf8'));
    return json(200, { jobId: id });
  }
  const status = /^\/v1\/obfuscate\/status\/(.+)$/.exec(path);
  if (status) {
    // The first status call runs out like a long poll would; the worker must ask again.
    if (++statusCalls === 1) return json(504, {});
    return json(200, { error: mode === 'job-error' ? 'Luraph could not parse the script' : null });
  }
  const download = /^\/v1\/obfuscate\/download\/(.+)$/.exec(path);
  if (download) {
    if (mode === 'download-fails') return json(404, { errors: [{ message: 'Job not found' }] });
    return response
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(`-- This file was protected using Luraph\n${jobs.get(download[1]!)}`);
  }
  json(404, { errors: [{ message: 'no route' }] });
});

let t: TestApp;
beforeAll(async () => {
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const port = (fake.address() as AddressInfo).port;
  t = await startTestApp({ LURAPH_API_KEY: 'lph-test-key', LURAPH_API_URL: `http://127.0.0.1:${port}/v1/`, LURAPH_POLL_INTERVAL_MS: '10' });
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
  await new Promise((resolve) => fake.close(resolve));
});
beforeEach(() => {
  mode = 'ok';
  seen.length = 0;
  statusCalls = 0;
});

async function upload(name: string, code: string) {
  const s = await seedService(t.ctx);
  const script = await uploadScript(t.app, s, { name, code, obfuscationType: 'LURAPH' });
  expect(script.status).toBe('processing');
  await t.ctx.jobs.settled();
  const row = await t.ctx.db.selectFrom('scripts').selectAll().where('id', '=', script.id).executeTakeFirstOrThrow();
  return { s, script, row };
}

describe('Luraph provider', () => {
  it('submits, polls until done, downloads and serves the result', async () => {
    const code = 'print("luraph ✓")';
    const { s, script, row } = await upload('lph', code);
    expect(row.status).toBe('ready');
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/obfuscate/nodes',
      'POST /v1/obfuscate/new',
      'GET /v1/obfuscate/status/job-1',
      'GET /v1/obfuscate/status/job-1',
      'GET /v1/obfuscate/download/job-1',
    ]);
    expect(seen.every((r) => r.apiKey === 'lph-test-key')).toBe(true);
    expect(seen[1]!.body).toMatchObject({ node: 'node-a', fileName: 'lph.lua', options: {}, useTokens: false, enforceSettings: false });
    expect(Buffer.from(String(seen[1]!.body!.script), 'base64').toString('utf8')).toBe(code);
    const [key] = await generateKeys(t.app, s.serviceKey);
    expect((await fetchScript(t.app, script.id, { key: key!, hwid: 'h' })).body).toBe(`-- This file was protected using Luraph\n${code}`);
  });

  it("keeps Luraph's own error messages as the failure reason", async () => {
    mode = 'reject-script';
    const rejected = await upload('lph-bad', 'print(');
    expect(rejected.row).toMatchObject({
      status: 'failed',
      failureReason: 'Luraph refused the request: script: unexpected symbol near line 1',
    });

    mode = 'bad-key';
    const unauthorized = await upload('lph-key', 'print(1)');
    expect(unauthorized.row).toMatchObject({ status: 'failed', failureReason: 'Luraph refused the request: Invalid API key' });

    mode = 'job-error';
    const jobFailed = await upload('lph-job', 'print(2)');
    expect(jobFailed.row).toMatchObject({
      status: 'failed',
      failureReason: 'Luraph refused the script: Luraph could not parse the script',
    });

    mode = 'download-fails';
    const missing = await upload('lph-dl', 'print(3)');
    expect(missing.row).toMatchObject({ status: 'failed', failureReason: 'Luraph refused the request: Job not found' });
  });

  it('fails with a reason when Luraph cannot be reached', async () => {
    const down = await startTestApp({ LURAPH_API_KEY: 'k', LURAPH_API_URL: 'http://127.0.0.1:9/v1' });
    try {
      const s = await seedService(down.ctx);
      const script = await uploadScript(down.app, s, { name: 'offline', code: 'x()', obfuscationType: 'LURAPH' });
      await down.ctx.jobs.settled();
      const row = await down.ctx.db.selectFrom('scripts').selectAll().where('id', '=', script.id).executeTakeFirstOrThrow();
      expect(row.status).toBe('failed');
      expect(row.failureReason).toMatch(/^Luraph could not be reached: /);
    } finally {
      await down.app.close();
      await down.database.drop();
    }
  });
});
