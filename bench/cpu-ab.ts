/**
 * Two builds side by side, in turns: CPU per request of build A and build B on the same target, measured in short
 * alternating slices (A B B A …), so a drift of the machine's speed (this VM's varies by a third within minutes) touches
 * both alike. bench/cpu-cost.ts runs one build at a time, and two such runs of one build differed by up to 40 %.
 *   npx tsx bench/cpu-ab.ts <A> <B> [validate|fetch|cold|redeem|heartbeat] [slices=20] [requests per slice=5000]
 * A and B are each a built server.js or a commit (a hash, a branch, HEAD~3): a commit is checked out into a work tree
 * of its own and compiled (bench/ab-builds.ts), and its database is seeded by that commit's own seed code, so a build
 * from before a migration is measured on the schema it knows.
 * Each build gets a database of its own, seeded alike: a SQLite folder, or with AB_POSTGRES=<admin url> a fresh
 * PostgreSQL database each (dropped at the end; their backends' CPU is reported beside the servers'). With two or more
 * CPUs both servers are pinned to CPU 0 and this process (the load generator) to CPU 1.
 * AB_GENERATOR=wrk sends each slice with wrk (50 connections, AB_SECONDS=3 s, pinned to CPU 1) instead of autocannon:
 * the generator of `npm run bench`, which keeps the server busier, so batching and syscall costs are those of the goals.
 * It also reports B's requests a second over A's.
 * AB_PAIRS=n (default 1) starts n fresh pairs of servers, one after another, the slices shared among them: two
 * processes of one build measured side by side differed by 8.5 % for their whole life (an A/A run), more than many
 * changes are worth, so one pair cannot tell such a change from the luck of its processes.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { prepareBuild } from './ab-builds.ts';
import { cpuOf, postgresBackendsCpuMs, requestsOf, startTarget, wrkSlice, type Target, type What } from './cpu-target.ts';

const [nameA, nameB, whatArg, slicesArg, perSliceArg] = process.argv.slice(2);
if (!nameA || !nameB)
  throw new Error('usage: bench/cpu-ab.ts <A: server.js or commit> <B: server.js or commit> [target] [slices] [requests per slice]');
const builds = [prepareBuild(nameA), prepareBuild(nameB)] as const;
if (process.env.DATABASE_URL) throw new Error('bench/cpu-ab.ts picks its databases: unset DATABASE_URL (AB_POSTGRES for PostgreSQL)');
const what = (whatArg ?? 'cold') as What;
const slices = Number(slicesArg ?? 20);
const perSlice = Number(perSliceArg ?? 5000);
const coldKeys = Number(process.env.COLD_KEYS ?? 50_000);
const options = { coldKeys, redemptions: 5000 + slices * perSlice + 1000, sessions: Number(process.env.AB_SESSIONS ?? 5000) };

const admin = process.env.AB_POSTGRES ? new pg.Client({ connectionString: process.env.AB_POSTGRES }) : undefined;
await admin?.connect();
const urlOf = (name: string | undefined) => {
  if (!name) return undefined;
  const url = new URL(process.env.AB_POSTGRES!);
  url.pathname = `/${name}`;
  return url.toString();
};
const useWrk = process.env.AB_GENERATOR === 'wrk';
const wrkSeconds = Number(process.env.AB_SECONDS ?? 3);
const pairs = Math.max(1, Number(process.env.AB_PAIRS ?? 1));

/** Sends one slice; answers how many requests were answered and how many failed. */
async function send(target: Target, amount: number): Promise<{ requests: number; failed: number }> {
  if (useWrk) return wrkSlice(target, wrkSeconds);
  const result = await autocannon({ url: target.url, connections: 50, amount, requests: requestsOf(target) });
  return { requests: amount, failed: result.non2xx };
}

const usA: number[] = [];
const usB: number[] = [];
const dbUs = { a: 0, b: 0 };
const answered = { a: 0, b: 0 };

/** µs of server CPU per request over one slice (its database backends' are added to dbUs). */
async function slice(target: Target, database: string, side: 'a' | 'b'): Promise<number> {
  const before = cpuOf(target.pid);
  const dbBefore = postgresBackendsCpuMs(database);
  const { requests, failed } = await send(target, perSlice);
  const after = cpuOf(target.pid);
  answered[side] += requests;
  dbUs[side] += ((postgresBackendsCpuMs(database) - dbBefore) * 1000) / requests;
  if (failed > 0) throw new Error(`${failed} answers were not 2xx`);
  return ((after.user + after.system - before.user - before.system) * 1000) / requests;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

for (let pair = 0; pair < pairs; pair++) {
  const databases = admin ? [`kw_ab_a_${process.pid}_${pair}`, `kw_ab_b_${process.pid}_${pair}`] : ['', ''];
  for (const name of databases) if (admin) await admin.query(`create database ${name}`);
  // Each pair starts the other build first, so neither always gets the first process's luck.
  const start = (side: 0 | 1) =>
    startTarget(what, {
      ...options,
      serverJs: builds[side].serverJs,
      seedTree: builds[side].tree,
      databaseUrl: urlOf(databases[side] || undefined),
    });
  // Whatever throws (a target wrk has no script for, a failed answer), the servers started so far stop with it.
  const started: Target[] = [];
  try {
    const first = await start(pair % 2 === 0 ? 0 : 1);
    started.push(first);
    const second = await start(pair % 2 === 0 ? 1 : 0);
    started.push(second);
    const [a, b] = pair % 2 === 0 ? [first, second] : [second, first];
    if (cpus().length >= 2) {
      for (const target of [a, b]) execFileSync('taskset', ['-a', '-cp', '0', String(target.pid)], { stdio: 'ignore' });
      execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
    }
    await send(a, 5000);
    await send(b, 5000);
    const count = Math.max(1, Math.round(slices / pairs));
    for (let i = 0; i < count; i++) {
      // A B, then B A: neither build always follows the other.
      if (i % 2 === 0) {
        usA.push(await slice(a, databases[0]!, 'a'));
        usB.push(await slice(b, databases[1]!, 'b'));
      } else {
        usB.push(await slice(b, databases[1]!, 'b'));
        usA.push(await slice(a, databases[0]!, 'a'));
      }
    }
    // Each pair's own figures: a process keeps its luck for its whole life, so a pair far from the others says so.
    const mean = (values: number[]) => round(sum(values.slice(-count)) / count);
    console.log(`pair ${pair + 1}: A ${mean(usA)} µs, B ${mean(usB)} µs a request`);
  } finally {
    await Promise.all(started.map((target) => target.kill()));
    if (admin) for (const name of databases) await admin.query(`drop database ${name} with (force)`);
  }
}
await admin?.end();

const done = usA.length;
const ratios = usB.map((value, i) => value / usA[i]!);
console.log(
  JSON.stringify({
    a: builds[0].label,
    b: builds[1].label,
    what,
    pairs,
    slices: done,
    perSlice: useWrk ? `${wrkSeconds} s` : perSlice,
    // Over all slices: a flush of the batched writes lands in some slices only, so slice medians would miss it.
    aUsPerRequest: round(sum(usA) / done),
    bUsPerRequest: round(sum(usB) / done),
    bOverA: round(sum(usB) / sum(usA), 3),
    // With wrk every slice lasts as long, so the answers counted are the throughputs.
    ...(useWrk ? { bRequestsOverA: round(answered.b / answered.a, 3) } : {}),
    ...(admin ? { aDatabaseUsPerRequest: round(dbUs.a / done), bDatabaseUsPerRequest: round(dbUs.b / done) } : {}),
    // Each slice's B over the A beside it: the spread says how far to trust the ratio.
    bOverAQuartiles: [round(ratios.sort((x, y) => x - y)[Math.floor(done / 4)]!, 3), round(ratios[Math.floor((3 * done) / 4)]!, 3)],
  }),
);
process.exit(0);
