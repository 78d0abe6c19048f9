import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService, type SeededAccount } from '../helpers/seed.ts';
import { testDialect } from '../helpers/database.ts';

/** Contract §10: a database that is briefly unreachable is a 503 UNAVAILABLE with Retry-After, never a 500. */
describe('connection-level database failures', () => {
  let refused: App;
  beforeAll(async () => {
    // Nothing listens on port 1: every query fails to connect (ECONNREFUSED), as while PostgreSQL restarts.
    const url = 'postgres://keyward@127.0.0.1:1/keyward';
    const config = loadConfig({ KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test', DATABASE_URL: url });
    config.migrateOnStart = false;
    refused = await buildApp({ config, database: openDatabase({ databaseUrl: url, dataDir: '' }), logger: false });
    await refused.ready();
  });
  afterAll(async () => {
    await refused?.close();
  });

  it('answers a refused connection with 503 and Retry-After, on an API route and on validation', async () => {
    for (const url of ['/api/v1/account', '/api/v1/keys/validate?service=svc&key=k&hwid=pc']) {
      const res = await call(refused, 'GET', url, { key: 'kw_' + 'a'.repeat(40) });
      expect(res.status, url).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'UNAVAILABLE', retryAfter: 5 });
      expect(res.headers['retry-after']).toBe('5');
    }
  });
});

// Only PostgreSQL has a server connection that can be cut under a running query.
if (testDialect() === 'postgres') {
  describe('a PostgreSQL connection terminated mid-query', () => {
    let t: TestApp;
    let account: SeededAccount;
    let admin: pg.Client;
    beforeAll(async () => {
      t = await startTestApp();
      account = await seedAccount(t.ctx);
      await seedService(t.ctx, account);
      admin = new pg.Client({ connectionString: t.database.env.DATABASE_URL });
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.end();
      await t?.app.close();
      await t?.database.drop();
    });

    it('answers 503 UNAVAILABLE without ending the process, and the service recovers on new connections', async () => {
      // Hold the table so the app's query waits; then cut that backend while it waits.
      await admin.query('BEGIN');
      await admin.query('LOCK TABLE services IN ACCESS EXCLUSIVE MODE');
      const pending = call(t.app, 'GET', '/api/v1/services', { key: account.accountKey });
      let waiting: number[] = [];
      while (waiting.length === 0) {
        const rows = await admin.query(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'",
        );
        waiting = rows.rows.map((r: { pid: number }) => r.pid);
      }
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [waiting]);
      await admin.query('ROLLBACK');
      const res = await pending;
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('5');
      // A pooled connection may not know yet that its server went away: it too answers 503, never a 500,
      // and the pool replaces it, so the service recovers by itself within a few requests.
      const after: number[] = [];
      while (after.at(-1) !== 200 && after.length < 5)
        after.push((await call(t.app, 'GET', '/api/v1/services', { key: account.accountKey })).status);
      expect(after.at(-1)).toBe(200);
      expect(after.every((status) => status === 503 || status === 200)).toBe(true);
    });
  });
}
