/**
 * One server to measure CPU per request against (bench/cpu-cost.ts, bench/cpu-ab.ts): a Keyward build on a fresh
 * database, seeded for the target, or the bare Fastify hello. The server runs in a process of its own, so its CPU can be
 * read from /proc.
 */
import { spawn } from 'node:child_process';
import type { Request } from 'autocannon';
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { coldHwid, coldKey, redeemHwid, redeemKey } from './seed-traffic.ts';
import { seedBenchService } from './seed-service.ts';
import { seedInTree } from './ab-builds.ts';
import { heartbeatScript, openLiveSessions } from './heartbeat-target.ts';
import { wrk } from './load.ts';

export type What = 'hello' | 'validate' | 'fetch' | 'cold' | 'redeem' | 'heartbeat';

export interface Target {
  pid: number;
  /** The url autocannon sends when `pathOf` is undefined. */
  url: string;
  /** A path per request, for the traffic of many keys (cold, redeem) or sessions (heartbeat). */
  pathOf?: () => string;
  /** The method when not GET (a heartbeat is a POST, as request() sends it). */
  method?: 'POST';
  /** wrk's Lua for the same traffic as `pathOf` (AB_GENERATOR=wrk); none: wrk sends `url`. */
  wrkScript?: string;
  /** Stops the server and removes its database folder. */
  kill: () => Promise<void>;
}

const SECRET = 'bench-secret-0123456789abcdef';

/** User and system CPU ms of a process (clock ticks are 10 ms on Linux). */
export const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
};

/** Busy and total clock ticks of each CPU (/proc/stat: user nice system idle iowait irq softirq steal). */
export const cpuTicks = () =>
  readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => {
      const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number) as number[];
      return {
        busy: user! + nice! + system! + irq! + softirq! + steal!,
        // Time the hypervisor gave another guest while this CPU had work: a VM's slow minutes show here.
        steal: steal!,
        all: user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!,
      };
    });

/** The ids of every process running now. */
export const processIds = () => readdirSync('/proc').filter((name) => /^\d+$/.test(name));

// Per database, the CPU ms last read of each backend, and of backends that have ended since: a pool closing an idle
// connection mid-run took its CPU out of the sum, and a run once read "database -3 µs" a request.
const backendsSeen = new Map<string, { byPid: Map<number, number>; ended: number }>();

/**
 * CPU ms (user + system) of the PostgreSQL backends connected to `database` (0 for none, or when not local): a running
 * total that counts a backend gone since an earlier call at its last reading, so differences never go negative.
 */
export function postgresBackendsCpuMs(database: string): number {
  if (!database) return 0;
  let seen = backendsSeen.get(database);
  if (!seen) backendsSeen.set(database, (seen = { byPid: new Map(), ended: 0 }));
  const live = new Set<number>();
  for (const pid of processIds()) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!command.startsWith('postgres: ') || !command.split(' ').includes(database)) continue;
      const { user, system } = cpuOf(Number(pid));
      const before = seen.byPid.get(Number(pid));
      // A smaller reading is a new backend that reuses an ended one's pid.
      if (before !== undefined && before > user + system) seen.ended += before;
      seen.byPid.set(Number(pid), user + system);
      live.add(Number(pid));
    } catch {
      // The process ended meanwhile.
    }
  }
  for (const [pid, ms] of seen.byPid) {
    if (live.has(pid)) continue;
    seen.ended += ms;
    seen.byPid.delete(pid);
  }
  let total = seen.ended;
  for (const ms of seen.byPid.values()) total += ms;
  return total;
}

/** CPU ms (user + system) of every local redis-server process (0 when none runs here). */
export function redisCpuMs(): number {
  let total = 0;
  for (const pid of processIds()) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('redis-server')) continue;
      const { user, system } = cpuOf(Number(pid));
      total += user + system;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** CPU ms of each thread of a process, by thread name. */
export const threadCpu = (pid: number) => {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.split(') ')[1]!.split(' ');
    out[`${name}`] = (out[name] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
  return out;
};

/** The server's environment: the database `databaseUrl` or DATABASE_URL names, else a folder of its own. */
export function serverEnv(databaseUrl = process.env.DATABASE_URL): Record<string, string> {
  const env: Record<string, string> = {
    LOG_LEVEL: 'warn',
    KEYWARD_SECRET: SECRET,
    RATE_LIMIT_CLIENT_PER_MINUTE: '1000000000',
    RATE_LIMIT_API_PER_MINUTE: '1000000000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: mkdtempSync(join(tmpdir(), 'kw-cpu-')) }),
  };
  for (const name of ['ANALYTICS', 'ANALYTICS_FLUSH_MS', 'REDIS_URL']) if (process.env[name]) env[name] = process.env[name]!;
  return env;
}

function spawnServer(args: string[], env: Record<string, string>, match: RegExp, wrapper: string[] = []) {
  // A wrapper (valgrind, bench/instructions.ts) runs Node in the same process: the pid is still the server's.
  const [command, ...prefix] = [...wrapper, process.execPath];
  const child = spawn(command!, [...prefix, ...args], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0', BASE_URL: 'http://keyward.test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The database folder goes with the server: a cold target's is 50 MB.
  const kill = async () => {
    child.kill('SIGTERM');
    await exited;
    if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
  };
  return new Promise<{ url: string; pid: number; kill: () => Promise<void> }>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      // SERVER_STDOUT=<file>: the server's output kept (V8 writes --trace-gc lines there, see bench/gc-summary.ts).
      if (process.env.SERVER_STDOUT) appendFileSync(process.env.SERVER_STDOUT, line + '\n');
      const m = match.exec(line);
      if (m) resolve({ url: m[1]!, pid: child.pid!, kill });
    });
  });
}

async function api(url: string, key: string, method: string, body?: unknown) {
  const r = await fetch(url, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await r.json()) as { data: Record<string, unknown> };
  if (!r.ok) throw new Error(JSON.stringify(json));
  return json.data;
}

/**
 * Seeds a fresh database for `what` and starts `serverJs` on it (`nodeArgs` before the script: a profiler's).
 * `redemptions`: how many fresh generated keys the redeem target needs.
 */
export async function startTarget(
  what: What,
  options: {
    serverJs: string;
    nodeArgs?: string[];
    coldKeys: number;
    redemptions: number;
    useTsx?: boolean;
    /** PostgreSQL to seed and serve from, instead of DATABASE_URL or SQLite. */
    databaseUrl?: string;
    /** heartbeat: how many live sessions the server holds. */
    sessions?: number;
    /** Another commit's work tree (bench/ab-builds.ts): its own code seeds the database its build serves. */
    seedTree?: string;
    /** A command the server's `node` runs under (valgrind's callgrind for bench/instructions.ts). */
    wrapper?: string[];
  },
): Promise<Target> {
  const env = serverEnv(options.databaseUrl);
  const nodeArgs = options.nodeArgs ?? [];
  if (what === 'hello') {
    const server = await spawnServer(
      [...nodeArgs, '--import', 'tsx', 'bench/hello-server.ts'],
      env,
      /"address":"([^"]+)"/,
      options.wrapper,
    );
    return { ...server, url: `${server.url}/hello` };
  }
  const counts = { coldKeys: options.coldKeys, redemptions: options.redemptions };
  const service = options.seedTree ? await seedInTree(options.seedTree, env, what, counts) : await seedBenchService(env, what, counts);
  const serviceKey = service.serviceKey;
  const server = await spawnServer(
    options.useTsx ? ['--import', 'tsx', 'src/server.ts'] : [...nodeArgs, options.serverJs],
    env,
    /^Keyward listening on (http:\/\/\S+)/,
    options.wrapper,
  );
  if (what === 'heartbeat') {
    const ids = await openLiveSessions(server.url, serviceKey, service.identifier, options.sessions ?? 5000);
    const base = `/api/v1/public/sessions/${service.identifier}/`;
    const pathOf = () => `${base}${ids[Math.floor(Math.random() * ids.length)]}/heartbeat`;
    return { ...server, url: `${server.url}${pathOf()}`, pathOf, method: 'POST', wrkScript: heartbeatScript(service.identifier, ids) };
  }
  const gen = await api(`${server.url}/api/v1/keys/api/generate`, serviceKey, 'POST', { expirationType: 'byDays', days: 30 });
  const key = (gen.keys as Array<{ key: string }>)[0]!.key;
  let url = `${server.url}/api/v1/keys/validate?service=${service.identifier}&key=${key}&hwid=bench-hwid`;
  let pathOf: (() => string) | undefined;
  let wrkScript: string | undefined;
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
      const i = 1 + Math.floor(Math.random() * options.coldKeys);
      return `${validate}&key=${coldKey(i)}&hwid=${coldHwid(i)}`;
    };
    const probe = await (await fetch(`${server.url}${pathOf()}`)).text();
    if (!probe.includes('"KEY_VALID"')) throw new Error(`${what} target does not answer KEY_VALID: ${probe}`);
    // The same traffic from wrk (AB_GENERATOR=wrk): keys at random, as `npm run bench` sends them.
    if (what === 'cold') wrkScript = coldWrkScript(validate, options.coldKeys);
  } else await (await fetch(url)).text();
  return { ...server, url, pathOf, wrkScript };
}

/** wrk Lua: key i (1…count) at random, with its own HWID (seed-traffic.ts coldKey, coldHwid). */
export const coldWrkScript = (validatePath: string, count: number) => `
math.randomseed(os.time())
request = function()
  local i = math.random(${count})
  return wrk.format("GET", string.format("${validatePath}&key=C%09d&hwid=HW-%09d", i, i))
end
`;

/** autocannon's `requests` option for a target that builds a path per request. */
export const requestsOf = (target: Target) =>
  target.pathOf
    ? [
        {
          setupRequest: (request: Request) => {
            request.path = target.pathOf!();
            if (target.method) {
              // A heartbeat as an HTTP client POSTs it (bench/heartbeat-target.ts): a JSON body of `{}`.
              request.method = target.method;
              request.body = '{}';
              request.headers = { ...request.headers, 'content-type': 'application/json' };
            }
            return request;
          },
        },
      ]
    : undefined;

/** One wrk run of `seconds` (50 connections, the target's script if it has one), pinned to CPU 1 when there are two. */
export async function wrkSlice(target: Target, seconds: number): Promise<{ requests: number; failed: number }> {
  // A target whose requests vary (cold keys, redemptions) needs its own script, or wrk would repeat one url.
  if (target.pathOf && !target.wrkScript) throw new Error('wrk has no script for this target');
  const generatorCpus = cpus().length >= 2 ? '1' : undefined;
  const result = await wrk(target.url, { connections: 50, seconds, cpus: generatorCpus, script: target.wrkScript });
  return { requests: result.requests!, failed: result.failed };
}
