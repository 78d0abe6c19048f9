/**
 * One server, two behaviours, in turns: CPU per request with a change off (A) and on (B) in the same process, for
 * changes too small for bench/cpu-ab.ts, whose two processes of one build differ by up to a tenth for their whole life.
 *   AB_FEATURE=<name> npx tsx bench/cpu-toggle.ts <server.js> [target=heartbeat] [slices=20]
 * The server must flip its behaviour on SIGUSR2 (a build patched for the experiment; see docs/benchmarks.md); slices
 * are wrk runs of AB_SECONDS (3) with 50 connections, A B B A …, the server pinned to CPU 0 and wrk to CPU 1.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { cpuOf, postgresBackendsCpuMs, redisCpuMs, startTarget, wrkSlice, type What } from './cpu-target.ts';

const [serverJs, whatArg, slicesArg] = process.argv.slice(2);
if (!serverJs) throw new Error('usage: bench/cpu-toggle.ts <server.js> [target] [slices]');
const what = (whatArg ?? 'heartbeat') as What;
const slices = Number(slicesArg ?? 20);
const seconds = Number(process.env.AB_SECONDS ?? 3);
const target = await startTarget(what, {
  serverJs,
  coldKeys: 50_000,
  redemptions: 5000,
  sessions: Number(process.env.AB_SESSIONS ?? 5000),
});
if (cpus().length >= 2) execFileSync('taskset', ['-a', '-cp', '0', String(target.pid)], { stdio: 'ignore' });

let on = false;
const flip = () => {
  process.kill(target.pid, 'SIGUSR2');
  on = !on;
};
/** The server's CPU so far; an unpatched build has no SIGUSR2 handler, and Node's default for it ends the process. */
const serverCpu = () => {
  try {
    return cpuOf(target.pid);
  } catch {
    throw new Error('the server is gone: cpu-toggle needs a build that flips a behaviour on SIGUSR2 (see docs/benchmarks.md)');
  }
};
// With DATABASE_URL, the PostgreSQL backends' CPU too (and Redis's with REDIS_URL, as the full run counts it): a change
// can move work between the server and the database.
const database = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL).pathname.slice(1) : '';
const databaseCpuMs = () => postgresBackendsCpuMs(database) + (process.env.REDIS_URL ? redisCpuMs() : 0);
async function slice(): Promise<{ us: number; dbUs: number; requests: number }> {
  const before = serverCpu();
  const dbBefore = databaseCpuMs();
  const { requests, failed } = await wrkSlice(target, seconds);
  const after = serverCpu();
  const dbUs = ((databaseCpuMs() - dbBefore) * 1000) / requests;
  if (failed > 0) throw new Error(`${failed} answers failed`);
  return { us: ((after.user + after.system - before.user - before.system) * 1000) / requests, dbUs, requests };
}
await slice();
const a: number[] = [];
const b: number[] = [];
const dbA: number[] = [];
const dbB: number[] = [];
let requestsA = 0;
let requestsB = 0;
for (let i = 0; i < slices; i++) {
  for (const wantOn of i % 2 === 0 ? [false, true] : [true, false]) {
    if (on !== wantOn) flip();
    const { us, dbUs, requests } = await slice();
    if (wantOn) {
      b.push(us);
      dbB.push(dbUs);
      requestsB += requests;
    } else {
      a.push(us);
      dbA.push(dbUs);
      requestsA += requests;
    }
  }
}
await target.kill();
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const ratios = b.map((value, i) => value / a[i]!).sort((x, y) => x - y);
const round = (value: number, digits = 3) => Number(value.toFixed(digits));
console.log(
  JSON.stringify({
    what,
    feature: process.env.AB_FEATURE,
    slices,
    aUsPerRequest: round(sum(a) / slices, 1),
    bUsPerRequest: round(sum(b) / slices, 1),
    bOverA: round(sum(b) / sum(a)),
    bRequestsOverA: round(requestsB / requestsA),
    bOverAQuartiles: [round(ratios[Math.floor(slices / 4)]!), round(ratios[Math.floor((3 * slices) / 4)]!)],
    ...(database || process.env.REDIS_URL
      ? { aDatabaseUsPerRequest: round(sum(dbA) / slices, 1), bDatabaseUsPerRequest: round(sum(dbB) / slices, 1) }
      : {}),
  }),
);
process.exit(0);
