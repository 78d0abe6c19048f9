/**
 * Does a server slow down after sitting idle, and does the machine slow with it? One target and a bare hello, each
 * pinned to CPU 0, measured in turns (hello, target) by wrk slices of AB_SECONDS (5), BURST turns at a time, with GAP
 * seconds (240: about a full run's wait between one target's turns) of idleness between bursts. Prints each slice's
 * requests a second and CPU per request, so a slow slice of the target can be set against the hello's beside it.
 *   GAP=240 BURSTS=4 BURST=4 NODE_ARGS="--no-memory-reducer" npx tsx bench/idle-gap.ts [validate|cold|heartbeat]
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { setTimeout as wait } from 'node:timers/promises';
import { cpuOf, startTarget, wrkSlice, type Target, type What } from './cpu-target.ts';

const what = (process.argv[2] ?? 'validate') as What;
const seconds = Number(process.env.AB_SECONDS ?? 5);
const gap = Number(process.env.GAP ?? 240);
const bursts = Number(process.env.BURSTS ?? 4);
const burst = Number(process.env.BURST ?? 4);
const options = { serverJs: process.env.SERVER_JS ?? 'dist/server.js', coldKeys: 50_000, redemptions: 5000, sessions: 10_000 };
const hello = await startTarget('hello', options);
const target = await startTarget(what, { ...options, nodeArgs: process.env.NODE_ARGS?.split(' ').filter(Boolean) });
for (const { pid } of [hello, target])
  if (cpus().length >= 2) execFileSync('taskset', ['-a', '-cp', '0', String(pid)], { stdio: 'ignore' });

async function slice(server: Target) {
  const before = cpuOf(server.pid);
  const { requests } = await wrkSlice(server, seconds);
  const after = cpuOf(server.pid);
  const us = ((after.user + after.system - before.user - before.system) * 1000) / requests;
  return { rps: requests / seconds, us };
}
await wrkSlice(hello, 3);
await wrkSlice(target, 3);
const started = Date.now();
for (let b = 0; b < bursts; b++) {
  if (b > 0) await wait(gap * 1000);
  for (let s = 0; s < burst; s++) {
    const h = await slice(hello);
    const t = await slice(target);
    console.log(
      `${String(Math.round((Date.now() - started) / 1000)).padStart(5)} s  burst ${b + 1}  hello ${Math.round(h.rps)} req/s ${h.us.toFixed(1)} µs` +
        `   ${what} ${Math.round(t.rps)} req/s ${t.us.toFixed(1)} µs   ratio ${(t.rps / h.rps).toFixed(3)}`,
    );
  }
}
await target.kill();
await hello.kill();
