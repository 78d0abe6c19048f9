/**
 * CPU time the server spends per request, for one target at a time: steadier than req/s on a shared
 * machine (it counts the server process's user+system time over a fixed number of requests).
 * npx tsx bench/cpu-cost.ts [validate|fetch|cold|redeem|hello] [requests]
 * `cold`: COLD_KEYS (default 50,000) bound keys validated in random order, so the verdict cache rarely answers;
 * `redeem`: every request redeems a fresh generated key (requests + the warm-up's are seeded first, into a service
 * that already has COLD_KEYS bound keys).
 * Also reports user and system time apart (system time is mostly the loopback socket, the same for every
 * target) and, with DATABASE_URL, the CPU of the PostgreSQL backends serving that database.
 * VERDICT_CACHE_MS=0 makes every validation run its query; PROFILE_DIR (and PROFILE_INTERVAL_US) write a CPU profile;
 * SERVER_JS=<another build>/server.js compares two builds.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/db/database.ts';
import { silentLog } from '../src/context.ts';
import { createContext } from '../src/modules/state.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { coldHwid, coldKey, redeemHwid, redeemKey, seedBoundKeys, seedGeneratedKeys } from './seed-traffic.ts';

const what = process.argv[2] ?? 'validate';
const requests = Number(process.argv[3] ?? 100000);
const WARMUP = 5000;
const coldKeys = Number(process.env.COLD_KEYS ?? 50_000);
const SECRET = 'bench-secret-0123456789abcdef';
const env: Record<string, string> = {
  LOG_LEVEL: 'warn',
  KEYWARD_SECRET: SECRET,
  RATE_LIMIT_CLIENT_PER_MINUTE: process.env.EXP_RL0 ? '0' : '1000000000',
  RATE_LIMIT_API_PER_MINUTE: '1000000000',
  ...(process.env.DATABASE_URL ? {} : { DATA_DIR: mkdtempSync(join(tmpdir(), 'kw-cpu-')) }),
};
for (const name of ['DATABASE_URL', 'ANALYTICS', 'REDIS_URL']) if (process.env[name]) env[name] = process.env[name]!;

const threadCpu = (pid: number) => {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.split(') ')[1]!.split(' ');
    out[`${name}`] = (out[name] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
  return out;
};
/** User and system CPU ms of a process (clock ticks are 10 ms on Linux). */
const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
};
/** CPU ms of the PostgreSQL backends connected to this run's database (0 without DATABASE_URL or when not local). */
const postgresCpuMs = () => {
  const database = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL).pathname.slice(1) : '';
  if (!database) return 0;
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!command.startsWith('postgres: ') || !command.split(' ').includes(database)) continue;
      const { user, system } = cpuOf(Number(pid));
      total += user + system;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
};

function start(args: string[], match: RegExp) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0', BASE_URL: 'http://keyward.test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<{ url: string; pid: number; kill: () => void }>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = match.exec(line);
      if (m) resolve({ url: m[1]!, pid: child.pid!, kill: () => child.kill('SIGTERM') });
    });
  });
}

async function api(url: string, key: string, method: string, body?: unknown) {
  const r = await fetch(url, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await r.json()) as { data: Record<string, unknown> };
  if (!r.ok) throw new Error(JSON.stringify(json));
  return json.data;
}

const profileArgs = process.env.PROFILE_DIR
  ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROFILE_DIR, '--cpu-prof-interval', process.env.PROFILE_INTERVAL_US ?? '1000']
  : [];
let server;
let url: string;
let pathOf: (() => string) | undefined;
if (what === 'hello') {
  server = await start([...profileArgs, '--import', 'tsx', 'bench/hello-server.ts'], /"address":"([^"]+)"/);
  url = `${server.url}/hello`;
} else {
  const config = loadConfig(env);
  const handle = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(handle.db);
  const ctx = await createContext({ config, database: handle, ownsDatabase: true, log: silentLog, role: 'cli' });
  const account = await createAccount(ctx, { username: `b${randomBytes(4).toString('hex')}`, password: 'bench password 1' });
  const service = await createService(ctx, account.id, { name: 'bench' });
  const serviceKey = ctx.sealer.open(service.apiKeySealed);
  if (what === 'cold') await seedBoundKeys(handle, service.id, coldKeys);
  if (what === 'redeem') {
    // A service that sells has buyers: redemptions land in a table of active keys (see startKeyward in bench/run.ts).
    await seedBoundKeys(handle, service.id, coldKeys);
    await seedGeneratedKeys(handle, service.id, WARMUP + requests + 1000);
  }
  await ctx.close();
  server = await start(
    process.env.USE_TSX ? ['--import', 'tsx', 'src/server.ts'] : [...profileArgs, process.env.SERVER_JS ?? 'dist/server.js'],
    /^Keyward listening on (http:\/\/\S+)/,
  );
  const gen = await api(`${server.url}/api/v1/keys/api/generate`, serviceKey, 'POST', { expirationType: 'byDays', days: 30 });
  const key = (gen.keys as Array<{ key: string }>)[0]!.key;
  url = `${server.url}/api/v1/keys/validate?service=${service.identifier}&key=${key}&hwid=bench-hwid`;
  if (what === 'fetch') {
    let code = '';
    while (code.length < 220 * 1024) code += `local v${code.length} = "${Array.from(randomBytes(48), (b) => `\\${b % 200}`).join('')}"\n`;
    const script = await api(`${server.url}/api/v1/vss/api/scripts`, serviceKey, 'POST', { name: 'bench', code });
    url = `${server.url}/api/v1/vss/fetch/${String(script.id)}?key=${key}&hwid=bench-hwid`;
  }
  if (what === 'cold' || what === 'redeem') {
    const validate = `/api/v1/keys/validate?service=${service.identifier}`;
    let next = 0;
    pathOf = () => {
      if (what === 'redeem') return `${validate}&key=${redeemKey(++next)}&hwid=${redeemHwid(next)}`;
      const i = 1 + Math.floor(Math.random() * coldKeys);
      return `${validate}&key=${coldKey(i)}&hwid=${coldHwid(i)}`;
    };
    const probe = await (await fetch(`${server.url}${pathOf()}`)).text();
    if (!probe.includes('"KEY_VALID"')) throw new Error(`${what} target does not answer KEY_VALID: ${probe}`);
  } else await (await fetch(url)).text();
}
const headers = process.env.GZIP ? { 'accept-encoding': 'gzip' } : {};
// A path per request for the traffic of many keys (cold, redeem); autocannon sends the url's otherwise.
const requestsOption = pathOf
  ? [
      {
        setupRequest: (request: { path?: string }) => {
          request.path = pathOf!();
          return request;
        },
      },
    ]
  : undefined;
await autocannon({ url, connections: 50, amount: WARMUP, headers, requests: requestsOption });
const before = cpuOf(server.pid);
const postgresBefore = postgresCpuMs();
const threadsBefore = threadCpu(server.pid);
const result = await autocannon({ url, connections: 50, amount: requests, headers, requests: requestsOption });
const after = cpuOf(server.pid);
const postgresUsed = postgresCpuMs() - postgresBefore;
const used = after.user + after.system - before.user - before.system;
const perRequest = (ms: number) => Math.round((ms * 1000 * 10) / requests) / 10;
const threadsAfter = threadCpu(server.pid);
if (process.env.THREADS) for (const name in threadsAfter) console.log(name, threadsAfter[name]! - (threadsBefore[name] ?? 0));
console.log(
  JSON.stringify({
    what,
    requests,
    non2xx: result.non2xx,
    serverCpuMs: used,
    usPerRequest: perRequest(used),
    // Only indicative: autocannon shares the machine with the server.
    requestsPerSecond: Math.round(requests / result.duration),
    userUs: perRequest(after.user - before.user),
    systemUs: perRequest(after.system - before.system),
    ...(process.env.DATABASE_URL ? { postgresUs: perRequest(postgresUsed) } : {}),
  }),
);
server.kill();
process.exit(0);
