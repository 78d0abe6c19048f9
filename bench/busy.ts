/**
 * Where a target's time goes while wrk loads it: how busy the server, its database and Redis are, and each CPU, run by
 * run. A server pinned to CPU 0 that is not near 100 % busy under full load waits for something (the fifteenth
 * session found the Redis heartbeat's server idle a sixth of its time, waiting for its one call on the wire).
 *   npx tsx bench/busy.ts <server.js> [target=heartbeat] [runs=4]
 * With DATABASE_URL (an empty database) and REDIS_URL as bench/cpu-toggle.ts takes them; AB_SECONDS (5) per run;
 * AB_FLIP=1 sends the server SIGUSR2 first (a build patched to flip a behaviour, as for cpu-toggle). It pins the server
 * to CPU 0 and wrk to CPU 1 itself: these scripts count the machine's CPUs, not the ones a `taskset` around them allows
 * (the fourteenth session's toggles, run under `taskset -c 1`, had left both on CPU 1).
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { cpuOf, cpuTicks, postgresBackendsCpuMs, redisCpuMs, startTarget, threadCpu, wrkSlice, type What } from './cpu-target.ts';

const [serverJs, whatArg, runsArg] = process.argv.slice(2);
if (!serverJs) throw new Error('usage: bench/busy.ts <server.js> [target] [runs]');
const seconds = Number(process.env.AB_SECONDS ?? 5);
const target = await startTarget((whatArg ?? 'heartbeat') as What, {
  serverJs,
  coldKeys: 50_000,
  redemptions: 5000,
  sessions: Number(process.env.AB_SESSIONS ?? 10_000),
});
if (cpus().length >= 2) execFileSync('taskset', ['-a', '-cp', '0', String(target.pid)], { stdio: 'ignore' });
if (process.env.AB_FLIP === '1') process.kill(target.pid, 'SIGUSR2');
const database = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL).pathname.slice(1) : '';

const reading = () => ({
  at: Date.now(),
  server: cpuOf(target.pid),
  threads: threadCpu(target.pid),
  database: postgresBackendsCpuMs(database),
  redis: process.env.REDIS_URL ? redisCpuMs() : 0,
  cpus: cpuTicks(),
});
const share = (ms: number, elapsed: number) => Number((ms / elapsed).toFixed(3));

for (let run = 0; run < Number(runsArg ?? 4); run++) {
  const before = reading();
  const { requests } = await wrkSlice(target, seconds);
  const after = reading();
  const elapsed = after.at - before.at;
  const serverMs = after.server.user + after.server.system - before.server.user - before.server.system;
  console.log(
    JSON.stringify({
      requestsPerSecond: Math.round((requests * 1000) / elapsed),
      serverUsPerRequest: Number(((serverMs * 1000) / requests).toFixed(1)),
      serverBusy: share(serverMs, elapsed),
      databaseBusy: share(after.database - before.database, elapsed),
      redisBusy: share(after.redis - before.redis, elapsed),
      // The server's threads by name (the main one is `node`), as a share of the run: a worker or the thread pool on
      // the server's CPU takes it from the main thread.
      threads: Object.fromEntries(
        Object.entries(after.threads)
          .map(([name, ms]) => [name, share(ms - (before.threads[name] ?? 0), elapsed)] as const)
          .filter(([, busy]) => busy >= 0.005),
      ),
      cpuBusy: after.cpus.map((cpu, i) => share(cpu.busy - before.cpus[i]!.busy, cpu.all - before.cpus[i]!.all)),
    }),
  );
}
await target.kill();
process.exit(0);
