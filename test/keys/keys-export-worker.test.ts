import { get, type IncomingMessage } from 'node:http';
import { finished } from 'node:stream/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { ExportWorkers, MAX_RUNNING_EXPORTS } from '../../src/modules/keys/export-workers.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { ADMIN_URL } from '../helpers/postgres-template.ts';
import { serviceSeeder } from '../helpers/records.ts';
import { call, type SeededService } from '../helpers/seed.ts';

// The export's worker thread (src/modules/keys/export-workers.ts): it lives only as long as its download.
const t = useTestApp();
const newService = serviceSeeder(t);

/** Enough keys that the JSON export (about 7 MB) cannot sit whole in the sockets' buffers while the client waits. */
async function serviceWithManyKeys(count = 20_000) {
  const s = await newService();
  const now = t().clock.now;
  await t()
    .ctx.db.transaction()
    .execute(async (trx) => {
      for (let i = 0; i < count; i += 300) {
        const keys = Array.from({ length: Math.min(300, count - i) }, (_, j) => ({
          key: `wrk${s.id.slice(0, 8)}${String(i + j).padStart(8, '0')}`,
          serviceId: s.id,
          note: 'a note long enough to make the export a few megabytes larger',
          isPremium: 0 as const,
          noHwidValidation: 0 as const,
          status: 'active' as const,
          expiresAt: null,
          chatId: null,
          expirationType: 'lifetime' as const,
          createdAt: now,
        }));
        await trx.insertInto('generatedKeys').values(keys).execute();
      }
    });
  return s;
}

/**
 * Starts a download on a listening app and reads its first bytes; the client then reads nothing more until told.
 * node:http rather than fetch: leaving is destroying the socket, as a client that goes away does.
 */
const addresses = new WeakMap<App, Promise<string>>();
async function startDownload(app: App, s: SeededService) {
  if (!addresses.has(app)) addresses.set(app, app.listen({ host: '127.0.0.1', port: 0 }));
  const address = await addresses.get(app)!;
  const request = get(`${address}/api/v1/keys/api/keys/export?format=json`, { headers: { 'x-api-key': s.serviceKey } });
  const response = await new Promise<IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject));
  expect(response.statusCode).toBe(200);
  await new Promise((resolve) => response.once('data', resolve));
  response.pause();
  return {
    leave: () => request.destroy(),
    /** Reads the rest; true when the response came to its proper end. */
    complete: async () => {
      // finished() also answers for a response already closed (the server may cut it before this is called).
      await finished(response.resume()).catch(() => {});
      return response.complete;
    },
  };
}

/** PostgreSQL: the export workers' connections to this test's database (openReader names them). */
const exportConnections = async () => {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
    where datname = current_database() and application_name = 'keyward export'`.execute(t().ctx.db);
  return rows[0]!.n;
};

describe('the export worker', () => {
  it('ends, with its database connection, when the client goes away mid-download', async () => {
    const s = await serviceWithManyKeys();
    const { ctx } = t();
    const download = await startDownload(t().app, s);
    expect(ctx.exports.running).toBe(1);
    // The worker connects once it reads its first batch, after the first bytes ('[') may have left.
    if (ctx.dialect === 'postgres') await expect.poll(exportConnections).toBe(1);

    download.leave();
    await expect.poll(() => ctx.exports.running).toBe(0);
    if (ctx.dialect === 'postgres') await expect.poll(exportConnections).toBe(0);
  });

  it('ends running exports when the server closes, cutting their downloads short', async () => {
    const s = await serviceWithManyKeys();
    const second = await anotherInstance(t());
    const download = await startDownload(second, s);
    expect(second.ctx.exports.running).toBe(1);

    // Without the preClose hook, close() would wait for this download for good (the test's timeout).
    await second.close();
    expect(second.ctx.exports.running).toBe(0);
    expect(await download.complete()).toBe(false);
  });

  it('turns a worker that cannot open its database into UNAVAILABLE and a logged error, never a crash', async () => {
    const errors: unknown[] = [];
    const log = { info: () => {}, warn: () => {}, error: (obj: unknown) => errors.push(obj) };
    const workers = new ExportWorkers({ sqliteFile: '/nonexistent/keyward.db' }, log);
    await expect(workers.stream('service', { type: 'all', now: t().clock.now }, 'csv')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/did not give the export a connection/),
    });
    expect(errors).toHaveLength(1);
    await expect.poll(() => workers.running).toBe(0);
  });

  it('answers 503 before any byte of the file when PostgreSQL refuses the export a connection', async () => {
    const { ctx } = t();
    if (ctx.dialect !== 'postgres') return;
    const s = await serviceWithManyKeys(1000);
    // The server's pool keeps the connection it has; only new ones are refused, as at max_connections.
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(ctx.db);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    const database = admin.escapeIdentifier(rows[0]!.name);
    await admin.connect();
    await admin.query(`alter database ${database} allow_connections false`);
    try {
      const refused = await call(t().app, 'GET', '/api/v1/keys/api/keys/export', { key: s.serviceKey });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ success: false, code: 'UNAVAILABLE' });
      expect(refused.headers['content-disposition']).toBeUndefined();
    } finally {
      await admin.query(`alter database ${database} allow_connections true`);
      await admin.end();
    }
    await expect.poll(() => ctx.exports.running).toBe(0);
    const exported = await call(t().app, 'GET', '/api/v1/keys/api/keys/export', { key: s.serviceKey });
    expect(exported.status).toBe(200);
    expect(String(exported.body).trim().split('\r\n')).toHaveLength(1001);
  });

  it('answers 429 with Retry-After while as many exports as it allows are running, and exports again once one ends', async () => {
    const s = await serviceWithManyKeys();
    const { ctx } = t();
    const second = await anotherInstance(t());
    const downloads = [];
    for (let i = 0; i < MAX_RUNNING_EXPORTS; i++) downloads.push(await startDownload(second, s));
    expect(second.ctx.exports.running).toBe(MAX_RUNNING_EXPORTS);

    const refused = await call(second, 'GET', '/api/v1/keys/api/keys/export', { key: s.serviceKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(refused.headers['retry-after']).toBe('10');
    // The limit is the instance's: another one still exports.
    expect((await call(t().app, 'GET', '/api/v1/keys/api/keys/export?type=active', { key: s.serviceKey })).status).toBe(200);

    downloads[0]!.leave();
    await expect.poll(() => second.ctx.exports.running).toBe(MAX_RUNNING_EXPORTS - 1);
    expect((await call(second, 'GET', '/api/v1/keys/api/keys/export?type=active', { key: s.serviceKey })).status).toBe(200);
    for (const download of downloads.slice(1)) download.leave();
    await expect.poll(() => second.ctx.exports.running).toBe(0);
    expect(ctx.exports.running).toBe(0);
    await second.close();
    // Four worker threads each streaming 5,000 keys: 15 s on a two-core machine busy with the rest of the suite.
  }, 90_000);

  it('refuses new exports once closed', async () => {
    const workers = new ExportWorkers(t().database.handle.source, { info: () => {}, warn: () => {}, error: () => {} });
    await workers.close();
    await expect(workers.stream('service', { type: 'all', now: t().clock.now }, 'csv')).rejects.toThrow(/shutting down/);
  });
});
