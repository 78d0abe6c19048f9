/**
 * Instructions the server executes per request, counted by valgrind's callgrind: the same count for the same build
 * and traffic whatever else the machine does, where CPU time per request (bench/cpu-cost.ts) moved by half between two
 * processes of one build on this project's VMs. For deciding whether a change makes a request cheaper; the goals of
 * docs/benchmarks.md stay req/s ratios from `npm run bench`.
 *
 * npx tsx bench/instructions.ts [hello|validate|fetch|cold|redeem|heartbeat] [requests=2000] [rounds=5]
 *
 * Counts the server process's user space (every thread of it: the JIT's compiler threads, SQLite's checkpoints), not
 * the kernel's share of a request (the socket: about a quarter of its CPU here), nor PostgreSQL's or Redis's
 * processes. Under callgrind a request is some fifty times slower, so the server is warmed up with WARMUP_ROUNDS
 * (default 10) of `requests` before the measured rounds (until V8 has optimized the hot path the count falls round
 * after round), and what it executes idle (its timers) is counted first and taken out of each round by its
 * length. It prints each round, their median and their mean. SERVER_JS=<another build>/server.js
 * compares two builds, as in bench/cpu-cost.ts; DATABASE_URL and REDIS_URL as there. `heartbeat` holds SESSIONS (500)
 * live sessions: opening the 5,000 of bench/cpu-cost.ts under callgrind took longer than a session lives unbeaten.
 * KEEP_DUMPS=1 keeps callgrind's dumps (one a round) and prints where.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requestsOf, startTarget, type What } from './cpu-target.ts';

const what = (process.argv[2] ?? 'validate') as What;
const requests = Number(process.argv[3] ?? 2000);
const rounds = Number(process.argv[4] ?? 5);
const WARMUP_ROUNDS = Number(process.env.WARMUP_ROUNDS ?? 10);
const IDLE_MS = 10_000;

const dumps = mkdtempSync(join(tmpdir(), 'kw-callgrind-'));
const server = await startTarget(what, {
  serverJs: process.env.SERVER_JS ?? 'dist/server.js',
  coldKeys: Number(process.env.COLD_KEYS ?? 50_000),
  redemptions: (WARMUP_ROUNDS + rounds) * requests + 1000,
  // Opening 5,000 under callgrind outlasts the 300 s a session lives without a beat.
  sessions: Number(process.env.SESSIONS ?? 500),
  wrapper: ['valgrind', '--tool=callgrind', `--callgrind-out-file=${join(dumps, 'callgrind.%p')}`],
});

// vgdb names the pipe to the server after $USER and $HOST on each side; the server runs with HOST=127.0.0.1.
const control = (command: '-z' | '-d') =>
  execFileSync('callgrind_control', [command, String(server.pid)], { env: { ...process.env, HOST: '127.0.0.1' }, stdio: 'ignore' });

/** The instruction total of the newest dump: callgrind writes one file per dump (callgrind.<pid>.<n>). */
function newestTotal(): number {
  const numbered = readdirSync(dumps).filter((name) => /\.\d+\.\d+$/.test(name));
  const last = Math.max(...numbered.map((name) => Number(name.split('.').pop())));
  const newest = join(
    dumps,
    numbered.find((name) => name.endsWith(`.${last}`))!,
  );
  const totals = /^totals: (\d+)/m.exec(readFileSync(newest, 'utf8'));
  if (!totals) throw new Error(`no totals line in ${newest}`);
  return Number(totals[1]);
}

/**
 * What the server executes a millisecond with no request: its timers (flushes, sweeps) run by the clock, and under
 * callgrind a round lasts fifty times longer than it would, so their share is taken out of each round.
 */
let idlePerMs = 0;
async function measureIdle(ms: number): Promise<void> {
  control('-z');
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  control('-d');
  idlePerMs = newestTotal() / (performance.now() - started);
}

async function round(): Promise<number> {
  control('-z');
  const started = performance.now();
  // Ten connections: under callgrind fifty would wait past autocannon's timeout.
  const result = await autocannon({ url: server.url, connections: 10, amount: requests, requests: requestsOf(server), timeout: 60 });
  control('-d');
  const elapsed = performance.now() - started;
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} answers not 2xx and ${result.errors} errors`);
  return (newestTotal() - idlePerMs * elapsed) / requests;
}

try {
  await measureIdle(IDLE_MS);
  console.error(`idle: ${Math.round(idlePerMs * 1000)} instructions a second`);
  for (let i = 0; i < WARMUP_ROUNDS; i++)
    console.error(`warm-up ${i + 1}/${WARMUP_ROUNDS}: ${Math.round(await round())} instructions a request`);
  const measured: number[] = [];
  for (let i = 0; i < rounds; i++) {
    measured.push(await round());
    console.error(`round ${i + 1}/${rounds}: ${Math.round(measured.at(-1)!)} instructions a request`);
  }
  const sorted = [...measured].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const mean = measured.reduce((a, b) => a + b, 0) / measured.length;
  // The median leaves out a round something unrelated landed in; the mean keeps work the requests cause in lumps (a
  // batched flush, a GC of what they allocated), which a round may or may not hold. Far apart, neither is the figure:
  // run longer rounds.
  console.log(
    JSON.stringify({
      what,
      requests,
      rounds: measured.map(Math.round),
      instructionsPerRequest: Math.round(median),
      mean: Math.round(mean),
    }),
  );
} finally {
  await server.kill();
  // KEEP_DUMPS=1 leaves them for callgrind_annotate (--inclusive=yes --tree=calling: where a request's count goes).
  if (process.env.KEEP_DUMPS) console.error(`callgrind's dumps are in ${dumps}`);
  else rmSync(dumps, { recursive: true, force: true });
}
process.exit(0);
