/**
 * npm run bench: requests per second and latency of GET /api/v1/keys/validate for a bound, valid key,
 * as a ratio to a bare Fastify hello-world measured in the same run with the same autocannon settings.
 * Each target is its own server process; autocannon runs here. Writes bench/results.json.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/db/database.ts';
import { Sealer } from '../src/lib/secrets.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { generateKeys } from '../src/modules/keys/keys.service.ts';
import { startServerProcess } from '../test/helpers/server-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECRET = 'bench-secret-0123456789abcdef';
const PG_ADMIN = process.env.KEYWARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SETTINGS = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  pipelining: 1,
  duration: Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: 3,
};
// The client limiter stays on (its cost is part of the hot path) with a budget the run cannot exhaust.
const SERVER_ENV = { LOG_LEVEL: 'warn', KEYWARD_SECRET: SECRET, RATE_LIMIT_CLIENT_PER_MINUTE: '1000000000' };

interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

async function measure(label: string, url: string): Promise<Figures> {
  await autocannon({ url, connections: SETTINGS.connections, pipelining: SETTINGS.pipelining, duration: SETTINGS.warmupSeconds });
  const result = await autocannon({ url, connections: SETTINGS.connections, pipelining: SETTINGS.pipelining, duration: SETTINGS.duration });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${label}: ${bad} failed requests (non-2xx ${result.non2xx}, errors ${result.errors})`);
  const figures = { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
  console.log(`${label.padEnd(18)} ${String(figures.rps).padStart(7)} req/s   p50 ${figures.p50} ms   p99 ${figures.p99} ms`);
  return figures;
}

function startHello(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/hello-server.ts'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /"address":"([^"]+)"/.exec(line);
      if (match) resolve({ url: match[1]!, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`hello server exited with ${code}`)));
  });
}

/** Seeds an account, a service and one key, and returns the validate URL once the key is bound. */
async function seed(env: Record<string, string>): Promise<(base: string) => Promise<string>> {
  const config = loadConfig({ ...env, KEYWARD_SECRET: SECRET });
  const handle = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(handle.db);
  const ctx = { config, db: handle.db, dialect: handle.dialect, sealer: new Sealer(SECRET), clock: Date.now, redis: null };
  const account = await createAccount(ctx, { username: `bench${Date.now()}`, password: 'bench password 1' });
  const service = await createService(ctx, account.id, { name: 'bench' });
  const [key] = await generateKeys(ctx, service.id, { expirationType: 'byDays', days: 30 });
  await handle.close();
  return async (base) => {
    const url = `${base}/api/v1/keys/validate?service=${service.identifier}&key=${key!.key}&hwid=bench-hwid`;
    const first = (await (await fetch(url)).json()) as { data: { code: string } };
    if (first.data.code !== 'KEY_VALID') throw new Error(`seeded key did not validate: ${first.data.code}`);
    return url;
  };
}

async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  console.log(
    `autocannon: ${SETTINGS.connections} connections, pipelining ${SETTINGS.pipelining}, ${SETTINGS.duration} s per target ` +
      `(+${SETTINGS.warmupSeconds} s warm-up), ${rounds} interleaved rounds; medians reported\n`,
  );
  // Every server stays up for the whole run and the targets take turns, so a drift in the machine's
  // speed touches the baseline and the targets alike instead of skewing their ratio.
  const targets: Array<{ name: string; label: string; url: string }> = [];
  const stops: Array<() => unknown> = [];
  const dir = mkdtempSync(join(tmpdir(), 'keyward-bench-'));
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  const pgName = `kw_bench_${process.pid}`;
  let pgCreated = false;
  try {
    const hello = await startHello();
    stops.push(hello.stop);
    targets.push({ name: 'baseline', label: 'baseline (hello)', url: `${hello.url}/hello` });

    const sqliteEnv = { DATA_DIR: dir };
    const bindSqlite = await seed(sqliteEnv);
    const sqliteServer = await startServerProcess({ ...SERVER_ENV, ...sqliteEnv });
    stops.push(sqliteServer.stop);
    targets.push({ name: 'validateSqlite', label: 'validate sqlite', url: await bindSqlite(sqliteServer.url) });

    if (await pgReachable()) {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${pgName}`);
      pgCreated = true;
      const url = new URL(PG_ADMIN);
      url.pathname = `/${pgName}`;
      const pgEnv = { DATABASE_URL: url.toString() };
      const bindPg = await seed(pgEnv);
      const pgServer = await startServerProcess({ ...SERVER_ENV, ...pgEnv });
      stops.push(pgServer.stop);
      targets.push({ name: 'validatePostgres', label: 'validate postgres', url: await bindPg(pgServer.url) });
    } else {
      console.log('validate postgres  skipped: PostgreSQL does not answer');
    }

    const samples = new Map<string, Figures[]>(targets.map((t) => [t.name, []]));
    for (let round = 1; round <= rounds; round++) {
      console.log(`round ${round}`);
      for (const target of targets) samples.get(target.name)!.push(await measure(`  ${target.label}`, target.url));
    }

    const results: Record<string, Figures & { ratio?: number }> = {};
    for (const [name, figures] of samples) {
      results[name] = { rps: median(figures.map((f) => f.rps)), p50: median(figures.map((f) => f.p50)), p99: median(figures.map((f) => f.p99)) };
    }
    const baseline = results.baseline!;
    console.log('\nmedians, and ratio to the baseline (goal: sqlite ≥ 0.5, postgres ≥ 0.25):');
    for (const [name, f] of Object.entries(results)) {
      if (name !== 'baseline') f.ratio = Math.round((f.rps / baseline.rps) * 1000) / 1000;
      console.log(`  ${name.padEnd(17)} ${String(f.rps).padStart(7)} req/s   p50 ${f.p50} ms   p99 ${f.p99} ms${f.ratio ? `   ratio ${f.ratio}` : ''}`);
    }
    writeFileSync(join(ROOT, 'bench/results.json'), JSON.stringify({ settings: { ...SETTINGS, rounds }, ...results }, null, 2) + '\n');
    console.log('written to bench/results.json');
  } finally {
    for (const stop of stops) await stop();
    if (pgCreated) await admin.query(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
    await admin.end().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
