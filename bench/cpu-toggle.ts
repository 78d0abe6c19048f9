/**
 * One server, two behaviours, in turns: CPU per request with a change off (A) and on (B) in the same process, for
 * changes too small for bench/cpu-ab.ts, whose two processes of one build differ by up to a tenth for their whole life.
 *   AB_FEATURE=<name> npx tsx bench/cpu-toggle.ts <server.js> [target=heartbeat] [slices=20]
 * The server must flip its behaviour on SIGUSR2 (a build patched for the experiment; see docs/benchmarks.md); slices
 * are wrk runs of AB_SECONDS (3) with 50 connections, A B B A …, the server pinned to CPU 0 and wrk to CPU 1.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { cpuOf, startTarget, type What } from './cpu-target.ts';
import { wrk } from './load.ts';

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
const cpus = availableParallelism() >= 2 ? '1' : undefined;
if (cpus) execFileSync('taskset', ['-a', '-cp', '0', String(target.pid)], { stdio: 'ignore' });

let on = false;
const flip = () => {
  process.kill(target.pid, 'SIGUSR2');
  on = !on;
};
async function slice(): Promise<{ us: number; requests: number }> {
  const before = cpuOf(target.pid);
  const result = await wrk(target.url, { connections: 50, seconds, cpus, script: target.wrkScript });
  const after = cpuOf(target.pid);
  if (result.failed > 0) throw new Error(`${result.failed} answers failed`);
  return { us: ((after.user + after.system - before.user - before.system) * 1000) / result.requests!, requests: result.requests! };
}
await slice();
const a: number[] = [];
const b: number[] = [];
let requestsA = 0;
let requestsB = 0;
for (let i = 0; i < slices; i++) {
  for (const wantOn of i % 2 === 0 ? [false, true] : [true, false]) {
    if (on !== wantOn) flip();
    const { us, requests } = await slice();
    if (wantOn) {
      b.push(us);
      requestsB += requests;
    } else {
      a.push(us);
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
  }),
);
process.exit(0);
