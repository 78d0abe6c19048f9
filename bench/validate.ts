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

async function main() {
  console.log(`autocannon: ${SETTINGS.connections} connections, pipelining ${SETTINGS.pipelining}, ${SETTINGS.duration} s per target (+${SETTINGS.warmupSeconds} s warm-up)\n`);
  const results: Record<string, Figures & { ratio?: number }> = {};

  const hello = await startHello();
  try {
    results.baseline = await measure('baseline (hello)', `${hello.url}/hello`);
  } finally {
    hello.stop();
  }
  const ratio = (f: Figures) => Math.round((f.rps / results.baseline!.rps) * 1000) / 1000;

  const dir = mkdtempSync(join(tmpdir(), 'keyward-bench-'));
  try {
    const env = { DATA_DIR: dir };
    const bindAndUrl = await seed(env);
    const server = await startServerProcess({ ...SERVER_ENV, ...env });
    try {
      const figures = await measure('validate sqlite', await bindAndUrl(server.url));
      results.validateSqlite = { ...figures, ratio: ratio(figures) };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  if (await pgReachable()) {
    const name = `kw_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ADMIN);
    url.pathname = `/${name}`;
    try {
      const env = { DATABASE_URL: url.toString() };
      const bindAndUrl = await seed(env);
      const server = await startServerProcess({ ...SERVER_ENV, ...env });
      try {
        const figures = await measure('validate postgres', await bindAndUrl(server.url));
        results.validatePostgres = { ...figures, ratio: ratio(figures) };
      } finally {
        await server.stop();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  } else {
    console.log('validate postgres  skipped: PostgreSQL does not answer');
  }

  console.log('\nratio to baseline (goal: sqlite ≥ 0.5, postgres ≥ 0.25):');
  for (const [name, f] of Object.entries(results)) if (f.ratio !== undefined) console.log(`  ${name}: ${f.ratio}`);
  writeFileSync(join(ROOT, 'bench/results.json'), JSON.stringify({ settings: SETTINGS, ...results }, null, 2) + '\n');
  console.log('written to bench/results.json');
}

await main();
