import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { runKeyward } from '../helpers/cli.ts';
import { ADMIN_URL, databaseUrl } from '../helpers/postgres-template.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

/**
 * docs/deploy.md's move from SQLite to PostgreSQL: `keyward copy-db --to postgres://…` copies every table of the
 * embedded database into an empty PostgreSQL one, and the server started on PostgreSQL (with the same secret) has
 * every record: accounts, services, keys with their HWIDs, the audit log.
 */
const dir = mkdtempSync(join(tmpdir(), 'keyward-copy-'));
const name = `kw_copy_${randomBytes(5).toString('hex')}`;
const target = databaseUrl(name);
const sqliteEnv = { DATA_DIR: dir, KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test' };

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function cli(args: string[], env: Record<string, string>) {
  return runKeyward(args, { DATABASE_URL: '', ...env });
}

const quiet = { RATE_LIMIT_CLIENT_PER_MINUTE: '0', RATE_LIMIT_API_PER_MINUTE: '0', RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0' };
const open = (env: Record<string, string>) => buildApp({ config: loadConfig({ ...quiet, ...env }), logger: false });

let keys: string[] = [];
let serviceId = '';
let serviceKey = '';
let counts: Record<string, number> = {};

beforeAll(async () => {
  await admin(`CREATE DATABASE ${name}`);
  const app = await open(sqliteEnv);
  try {
    const s = await seedService(app.ctx);
    serviceId = s.id;
    serviceKey = s.serviceKey;
    keys = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', count: 30, note: 'copied' });
    const validate = await call(app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${keys[0]}&hwid=pc-1`);
    expect(validate.body.data.valid).toBe(true);
    counts = {};
    for (const table of ['accounts', 'services', 'generatedKeys', 'activeKeys', 'keyHwids', 'auditLog'] as const) {
      const row = await app.ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
  } finally {
    await app.close();
  }
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

describe('keyward copy-db', () => {
  it('refuses a target that is not PostgreSQL, naming what it needs', async () => {
    const result = await cli(['copy-db', '--to', 'mysql://nope'], sqliteEnv);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('copy-db needs --to postgres://');
  });

  it('copies every table into an empty PostgreSQL database, and the server there has every record', async () => {
    const result = await cli(['copy-db', '--to', target], sqliteEnv);
    expect(result.stderr).not.toMatch(/Error|failed/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Copied \d+ rows in \d+ tables from .* to PostgreSQL/);

    let app: App | undefined;
    try {
      app = await open({ DATABASE_URL: target, KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test' });
      for (const [table, count] of Object.entries(counts)) {
        const row = await app.ctx.db
          .selectFrom(table as 'accounts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        expect({ table, count: Number(row.n) }).toEqual({ table, count });
      }
      // The redeemed key still knows its HWID; the sealed service key still opens with the same secret.
      const same = await call(app, 'GET', `/api/v1/keys/validate?service=${serviceId}&key=${keys[0]}&hwid=pc-1`);
      expect(same.body.data.valid).toBe(true);
      const other = await call(app, 'GET', `/api/v1/keys/validate?service=${serviceId}&key=${keys[0]}&hwid=pc-2`);
      expect(other.body.data.valid).toBe(false);
      const info = await call(app, 'GET', '/api/v1/keys/api/service/info', { key: serviceKey });
      expect(info.status).toBe(200);
      // The keys' search text is rebuilt by PostgreSQL's own triggers.
      const found = await call(app, 'GET', `/api/v1/keys/api/keys?search=${keys[5]!.slice(0, 12)}`, { key: serviceKey });
      expect(found.status).toBe(200);
      expect(found.body.data.items.map((k: { key: string }) => k.key)).toContain(keys[5]);
    } finally {
      await app?.close();
    }
  });

  it('refuses to copy into a database that already holds data', async () => {
    const again = await cli(['copy-db', '--to', target], sqliteEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the PostgreSQL database already holds data \(\d+ rows in \w+\): copy into an empty database/);
  });
});
