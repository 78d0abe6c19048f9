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
 * SERVER_JS=<another build>/server.js compares two builds. NODE_ARGS: the server's own Node flags (NODE_OPTIONS cannot
 * carry V8's --trace-gc-nvp); with SERVER_STDOUT=<file> its GC lines are kept for bench/gc-summary.ts.
 * WINDOWS=6 measures six windows of `requests` one after another in the same server, and prints each: one process holds
 * its speed, while two processes of one build can differ by half (docs/benchmarks.md, the eleventh session).
 * WRAPPER: a command the server runs under, such as `taskset -c 0` (run this script itself under `taskset -c 1`).
 */
import autocannon from 'autocannon';
import { cpuOf, postgresBackendsCpuMs, requestsOf, startTarget, threadCpu, type What } from './cpu-target.ts';

const what = (process.argv[2] ?? 'validate') as What;
const requests = Number(process.argv[3] ?? 100000);
const WARMUP = 5000;
const coldKeys = Number(process.env.COLD_KEYS ?? 50_000);
const windows = Math.max(1, Number(process.env.WINDOWS ?? 1));

/** CPU ms of the PostgreSQL backends connected to this run's database (0 without DATABASE_URL or when not local). */
const postgresCpuMs = () => postgresBackendsCpuMs(process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL).pathname.slice(1) : '');

const profileArgs = process.env.PROFILE_DIR
  ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROFILE_DIR, '--cpu-prof-interval', process.env.PROFILE_INTERVAL_US ?? '1000']
  : [];
const server = await startTarget(what, {
  serverJs: process.env.SERVER_JS ?? 'dist/server.js',
  nodeArgs: [...profileArgs, ...(process.env.NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
  coldKeys,
  redemptions: WARMUP + requests * windows + 1000,
  useTsx: Boolean(process.env.USE_TSX),
  wrapper: process.env.WRAPPER?.split(' ').filter(Boolean),
});
const url = server.url;
const headers = process.env.GZIP ? { 'accept-encoding': 'gzip' } : {};
// A path per request for the traffic of many keys (cold, redeem); autocannon sends the url's otherwise.
const requestsOption = requestsOf(server);
await autocannon({ url, connections: 50, amount: WARMUP, headers, requests: requestsOption });
const perRequest = (ms: number) => Math.round((ms * 1000 * 10) / requests) / 10;
for (let window = 1; window <= windows; window++) {
  const before = cpuOf(server.pid);
  const postgresBefore = postgresCpuMs();
  const threadsBefore = threadCpu(server.pid);
  const result = await autocannon({ url, connections: 50, amount: requests, headers, requests: requestsOption });
  const after = cpuOf(server.pid);
  const postgresUsed = postgresCpuMs() - postgresBefore;
  const used = after.user + after.system - before.user - before.system;
  const threadsAfter = threadCpu(server.pid);
  if (process.env.THREADS) for (const name in threadsAfter) console.log(name, threadsAfter[name]! - (threadsBefore[name] ?? 0));
  console.log(
    JSON.stringify({
      what,
      ...(windows > 1 ? { window } : {}),
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
}
await server.kill();
process.exit(0);
