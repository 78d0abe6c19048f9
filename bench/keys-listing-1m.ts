/**
 * By-hand check of contract §7.2: one service with 1,000,000 keys answers a filtered page of GET /keys/api/keys
 * well under a second. Not part of the test suite (seeding takes a while). Run:
 *   npx tsx bench/keys-listing-1m.ts                      # embedded SQLite in a temporary directory
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/kw_perf npx tsx bench/keys-listing-1m.ts   # an empty PostgreSQL database
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';

const TOTAL = Number(process.env.KEYS ?? 1_000_000);
const ACTIVE = Math.round(TOTAL * 0.7);
const dataDir = mkdtempSync(join(tmpdir(), 'keyward-1m-'));
const databaseUrl = process.env.DATABASE_URL ?? null;
const config = loadConfig({
  KEYWARD_SECRET: 'bench-secret-0123456789abcdef',
  DATA_DIR: dataDir,
  RATE_LIMIT_API_PER_MINUTE: '0',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});
const handle = openDatabase({ databaseUrl, dataDir });
await migrate(handle.db);
const app = await buildApp({ config, database: handle, logger: false });
await app.ready();
const ctx = app.ctx;
const account = await createAccount(ctx, { username: `bench${Date.now()}`, password: 'a long bench password', role: 'user' });
const service = await createService(ctx, account.id, { name: `bench ${Date.now()}` });
const apiKey = ctx.sealer.open(service.apiKeySealed);
// Inlined as SQL text: as a bound parameter PostgreSQL would type it integer and refuse epoch milliseconds.
const baseMs = Date.now() - 400 * 86_400_000;
const base = sql.raw(String(baseMs));

// Spread values deterministically: ~2 % banned, ~2 % paused, 10 % premium, 25 % lifetime, half the active keys bound.
const started = Date.now();
const series = (n: number) =>
  handle.dialect === 'postgres'
    ? sql`SELECT g::bigint AS i FROM generate_series(1, ${n}::integer) g`
    : sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s`;
const pad = (expr: string) => (handle.dialect === 'postgres' ? `lpad(${expr}::text, 9, '0')` : `printf('%09d', ${expr})`);
const status = `CASE WHEN i % 50 = 0 THEN 'banned' WHEN i % 50 = 1 THEN 'paused' ELSE 'active' END`;
const expires = `CASE WHEN i % 4 = 0 THEN NULL ELSE ${baseMs} + (i * 104729 % 1000000) * 60000 END`;
await sql`INSERT INTO active_keys (key, service_id, hwid, note, is_premium, no_hwid_validation, status, expires_at, chat_id, executions, created_at, activated_at, last_used_at, hwid_reset_at, hwid_reset_count, max_hwids, hwid_count)
  SELECT ${sql.raw(`'A' || ${pad('i')}`)}, ${service.id}, CASE WHEN i % 2 = 0 THEN ${sql.raw(`'HW-' || ${pad('i')}`)} END, CASE WHEN i % 7 = 0 THEN 'reseller batch' END,
    CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, 0, ${sql.raw(status)}, ${sql.raw(expires)}, NULL, i * 31 % 1000,
    ${base} + (i * 7919 % 1000000) * 1000, ${base} + (i * 7919 % 1000000) * 1000, CASE WHEN i % 3 = 0 THEN NULL ELSE ${base} + (i * 13 % 1000000) * 30000 END, NULL, 0, 1,
    CASE WHEN i % 2 = 0 THEN 1 ELSE 0 END
  FROM (${series(ACTIVE)}) s`.execute(handle.db);
await sql`INSERT INTO key_hwids (key, service_id, hwid, position) SELECT key, service_id, hwid, 1 FROM active_keys WHERE service_id = ${service.id} AND hwid IS NOT NULL`.execute(
  handle.db,
);
await sql`INSERT INTO generated_keys (key, service_id, note, is_premium, no_hwid_validation, status, expires_at, chat_id, expiration_type, created_at, max_hwids)
  SELECT ${sql.raw(`'G' || ${pad('i')}`)}, ${service.id}, NULL, CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, 0, ${sql.raw(status)}, ${sql.raw(expires)}, NULL,
    CASE WHEN i % 4 = 0 THEN 'lifetime' ELSE 'byDate' END, ${base} + (i * 7919 % 1000000) * 1000 + 500, 1
  FROM (${series(TOTAL - ACTIVE)}) s`.execute(handle.db);
if (handle.dialect === 'postgres') await sql`ANALYZE`.execute(handle.db);
else await sql`ANALYZE`.execute(handle.db);
console.log(`${handle.dialect}: seeded ${TOTAL} keys (${ACTIVE} active) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const queries = [
  '',
  'status=banned',
  'premium=true&expired=false',
  'type=active&bound=true',
  'sort=expiresAt&order=asc',
  'sort=lastUsedAt',
  'sort=executions&status=paused',
  'page=500&limit=100',
  'search=HW-00012345',
  'search=reseller&type=active',
];
for (const query of queries) {
  const times: number[] = [];
  let total = 0;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url: `/api/v1/keys/api/keys?${query}`, headers: { 'x-api-key': apiKey } });
    times.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
    total = res.json().data.total;
  }
  times.sort((a, b) => a - b);
  console.log(`  ${(query || '(no filter)').padEnd(32)} median ${times[1]!.toFixed(0).padStart(5)} ms  (total ${total})`);
}
await app.close();
// KEEP_DATA=1 leaves the SQLite file for a look at the plans.
if (process.env.KEEP_DATA) console.log(`data kept in ${dataDir}`);
else rmSync(dataDir, { recursive: true, force: true });
