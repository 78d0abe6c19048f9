import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLog } from '../../src/context.ts';
import { createContext } from '../../src/modules/state.ts';
import { createAccount } from '../../src/modules/accounts/accounts.service.ts';
import { createService } from '../../src/modules/services/services.service.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { runKeyward } from '../helpers/cli.ts';
import { compiledServer } from '../helpers/compiled-build.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

/**
 * `npm start` as production runs it: the sources compiled by tsconfig.build.json (the run's build, beside dist/ at
 * the same depth: test/helpers/compiled-build.ts), then the compiled server and CLI. One server process for the file;
 * the last test stops it with SIGTERM (contract §10).
 */

let database: TestDatabase;
let server: ServerProcess;
let base = '';
let serviceId = '';
let serviceKey = '';

beforeAll(async () => {
  database = await createTestDatabase();
  const ctx = await createContext({
    config: loadConfig({ KEYWARD_SECRET: TEST_SECRET, ...database.env }),
    database: database.handle,
    ownsDatabase: false,
    log: silentLog,
    role: 'cli',
  });
  const account = await createAccount(ctx, { username: `ops${process.pid}`, password: 'a long enough password' });
  const service = await createService(ctx, account.id, { name: 'ops' });
  serviceId = service.id;
  serviceKey = ctx.sealer.open(service.apiKeySealed);
  await ctx.close();

  server = await startServerProcess(
    {
      ...database.env,
      KEYWARD_SECRET: TEST_SECRET,
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
      RATE_LIMIT_API_PER_MINUTE: '0',
      // The longest flush interval allowed: a count made just before SIGTERM is still in memory then.
      ANALYTICS_FLUSH_MS: '5000',
    },
    { command: compiledServer() },
  );
  base = server.url;
}, 120_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited();
  }
  await database?.drop();
});

describe('the production build', () => {
  it('serves the API and the dashboard from compiled JavaScript', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<div id="root">');
  });

  it('runs the compiled CLI, which says what it does not know', async () => {
    const result = await runKeyward(['keys', 'list'], { ...database.env, KEYWARD_SECRET: TEST_SECRET });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('unknown command "keys list"');
  });

  it('on SIGTERM stops accepting, finishes the request in flight, flushes its counts and exits 0', async () => {
    const generated = await fetch(`${base}/api/v1/keys/api/generate`, {
      method: 'POST',
      headers: { 'x-api-key': serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ expirationType: 'lifetime' }),
    });
    const key = ((await generated.json()) as { data: { keys: Array<{ key: string }> } }).data.keys[0]!.key;
    const verdict = await fetch(`${base}/api/v1/keys/validate?service=${serviceId}&key=${key}&hwid=pc-1`);
    expect(verdict.status).toBe(200);

    const generateRequests = (lines: string[]) =>
      lines.filter((line) => line.includes('"incoming request"') && line.includes('/api/v1/keys/api/generate')).length;
    const seen = generateRequests(server.lines);
    // A request whose body is half sent: in flight until the rest arrives.
    const { port } = new URL(base);
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = JSON.stringify({ expirationType: 'lifetime', note: 'sent across a shutdown' });
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('close', () => resolve(text));
    });
    socket.write(
      `POST /api/v1/keys/api/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${serviceKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    // The server has the request once it logs it.
    await server.waitFor((lines) => generateRequests(lines) > seen);

    server.child.kill('SIGTERM');
    await server.waitFor((lines) => lines.some((line) => line.includes('"shutting down"')));
    // No new connection is accepted (polled until the listener is gone; the test's own timeout bounds it).
    for (;;) {
      const refused = await new Promise<boolean>((resolve) => {
        const probe = net.connect({ host: '127.0.0.1', port: Number(port) });
        probe.once('connect', () => (probe.destroy(), resolve(false)));
        probe.once('error', () => resolve(true));
      });
      if (refused) break;
    }

    socket.write(body.slice(10));
    const response = await answer;
    expect(response).toMatch(/^HTTP\/1\.1 201 /);
    expect(response).toContain('sent across a shutdown');
    expect(await server.exited()).toBe(0);

    const counted = await database.handle.db
      .selectFrom('analyticsBuckets')
      .select(['validations', 'valid'])
      .where('serviceId', '=', serviceId)
      .execute();
    expect(counted.reduce((sum, row) => sum + row.validations, 0)).toBe(1);
    expect(counted.reduce((sum, row) => sum + row.valid, 0)).toBe(1);
  });
});
