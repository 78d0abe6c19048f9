/**
 * Contract §7.2 at scale: one service with 1,000,000 keys answers a filtered page of GET /keys/api/keys well under a
 * second, on SQLite and (when it answers) PostgreSQL, each on a fresh database (bench/databases.ts). Part of
 * `npm run bench` (bench/run.ts keeps its JSON lines in bench/results.json as `listKeys`); alone:
 *   npx tsx bench/keys-listing-1m.ts        # KEYS=100000 for a quicker look, RUNS for the repetitions (default 5)
 * Each request goes through the app (inject), page and `total` both; the median (p50) of RUNS is reported.
 */
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate, type DbHandle } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { onEachDatabase } from './databases.ts';
import { seedKeys } from './seed-keys.ts';

const TOTAL = Number(process.env.KEYS ?? 1_000_000);
const RUNS = Number(process.env.RUNS ?? 5);
/** The case: a status filter with a search, the page a seller's dashboard asks for most. */
const FILTERED = 'status=banned&search=hw-0001';
/** Terms too short for a trigram index (contract §7.2 has no minimum length): the slowest of them is a goal too. */
const SHORT = ['search=zz', 'search=q', 'status=banned&search=zz'];

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
  FILTERED,
  'status=banned&search=reseller',
  'search=A00000012',
  ...SHORT,
  // A short term in every active key ('A000…'): both reads of the keys, page and count.
  'search=a',
];

async function measure(dialect: 'sqlite' | 'postgres', env: Record<string, string>, handle: DbHandle) {
  await migrate(handle.db);
  const config = loadConfig({ KEYWARD_SECRET: 'bench-secret-0123456789abcdef', RATE_LIMIT_API_PER_MINUTE: '0', ...env });
  const app = await buildApp({ config, database: handle, logger: false });
  try {
    await app.ready();
    const ctx = app.ctx;
    const account = await createAccount(ctx, { username: `bench${Date.now()}`, password: 'a long bench password', role: 'user' });
    const service = await createService(ctx, account.id, { name: `bench ${Date.now()}` });
    const apiKey = ctx.sealer.open(service.apiKeySealed);
    const started = Date.now();
    await seedKeys(handle, service.id, TOTAL);
    const seedSeconds = (Date.now() - started) / 1000;
    console.log(`${dialect}: seeded ${TOTAL} keys (70 % active) in ${seedSeconds.toFixed(1)} s`);

    const p50Ms: Record<string, number> = {};
    const totals: Record<string, number> = {};
    for (const query of queries) {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const t0 = performance.now();
        const res = await app.inject({ method: 'GET', url: `/api/v1/keys/api/keys?${query}`, headers: { 'x-api-key': apiKey } });
        times.push(performance.now() - t0);
        if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
        totals[query || '(no filter)'] = res.json().data.total;
      }
      times.sort((a, b) => a - b);
      const label = query || '(no filter)';
      p50Ms[label] = Math.round(times[Math.floor(RUNS / 2)]!);
      console.log(`  ${label.padEnd(32)} p50 ${String(p50Ms[label]).padStart(5)} ms  (total ${totals[label]})`);
    }
    return {
      dialect,
      keys: TOTAL,
      runs: RUNS,
      seedSeconds: Number(seedSeconds.toFixed(1)),
      filteredPage: FILTERED,
      filteredPageP50Ms: p50Ms[FILTERED]!,
      shortSearchP50Ms: Math.max(...SHORT.map((query) => p50Ms[query]!)),
      p50Ms,
      totals,
    };
  } finally {
    await app.close();
  }
}

for (const figures of await onEachDatabase('listing', measure)) console.log(JSON.stringify(figures));
