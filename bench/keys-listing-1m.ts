/**
 * By-hand check of contract §7.2: one service with 1,000,000 keys answers a filtered page of GET /keys/api/keys
 * well under a second. Not part of the test suite (seeding takes a while). Run:
 *   npx tsx bench/keys-listing-1m.ts                      # embedded SQLite in a temporary directory
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/kw_perf npx tsx bench/keys-listing-1m.ts   # an empty PostgreSQL database
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { seedKeys } from './seed-keys.ts';

const TOTAL = Number(process.env.KEYS ?? 1_000_000);
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
const started = Date.now();
await seedKeys(handle, service.id, TOTAL);
console.log(`${handle.dialect}: seeded ${TOTAL} keys (70 % active) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

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
