/**
 * When do slow answers come? One hot validation server (PostgreSQL with DATABASE_URL, else SQLite) pinned to CPU 0,
 * loaded from CPU 1 at a fixed rate by autocannon over 10 connections for 20 s; each answer slower than SLOW_MS is
 * put in its 100 ms bucket of the run, and the buckets are printed in order. A bucket of 10 is every connection held
 * at once: the event loop stood still. With NODE_ARGS=--trace-gc SERVER_STDOUT=<file>, the collector's pauses beside.
 *   npx tsx bench/stalls.ts            # RATE (default 15000, half a hot validation's rate here), SLOW_MS (default 4)
 * The p99 at half load of docs/benchmarks.md is one figure of such a run; this says whether its slow answers are
 * spread out or come together, and when.
 */
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { startTarget } from './cpu-target.ts';

const RATE = Number(process.env.RATE ?? 15_000);
const SLOW_MS = Number(process.env.SLOW_MS ?? 4);
const CONNECTIONS = 10;

const server = await startTarget('validate', {
  serverJs: process.env.SERVER_JS ?? 'dist/server.js',
  coldKeys: 0,
  redemptions: 0,
  nodeArgs: process.env.NODE_ARGS?.split(' ').filter(Boolean),
});
execFileSync('taskset', ['-a', '-p', '-c', '0', String(server.pid)], { stdio: 'ignore' });
execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
// Warm-up: the first second's compiles and collections are not what a running server meets.
await autocannon({ url: server.url, connections: CONNECTIONS, amount: 20_000 });

const start = Date.now();
const slow: number[] = [];
let answered = 0;
const result = await new Promise<autocannon.Result>((resolve, reject) => {
  const run = autocannon({ url: server.url, connections: CONNECTIONS, overallRate: RATE, duration: 20 }, (err, done) =>
    err ? reject(err) : resolve(done),
  );
  run.on('response', (_client, _status, _bytes, ms) => {
    answered++;
    if (ms >= SLOW_MS) slow.push(Date.now() - start);
  });
});
const buckets = new Map<number, number>();
for (const at of slow) buckets.set(Math.floor(at / 100), (buckets.get(Math.floor(at / 100)) ?? 0) + 1);
console.log(JSON.stringify({ requestsPerSecond: result.requests.average, p99: result.latency.p99, slow: slow.length, answered }));
console.log([...buckets].map(([bucket, count]) => `${(bucket / 10).toFixed(1)}s:${count}`).join(' '));
await server.kill();
process.exit(0);
