/**
 * Two builds side by side, in turns: CPU per request of build A and build B on the same target, measured in short
 * alternating slices (A B B A …), so a drift of the machine's speed (this VM's varies by a third within minutes) touches
 * both alike. bench/cpu-cost.ts runs one build at a time, and two such runs of one build differed by up to 40 %.
 *   npx tsx bench/cpu-ab.ts <A/server.js> <B/server.js> [validate|fetch|cold|redeem|heartbeat] [slices=20] [requests per slice=5000]
 * Each build gets a database of its own, seeded alike: a SQLite folder, or with AB_POSTGRES=<admin url> a fresh
 * PostgreSQL database each (dropped at the end; their backends' CPU is reported beside the servers'). With two or more
 * CPUs both servers are pinned to CPU 0 and this process (the load generator) to CPU 1.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { cpuOf, postgresBackendsCpuMs, requestsOf, startTarget, type Target, type What } from './cpu-target.ts';

const [serverA, serverB, whatArg, slicesArg, perSliceArg] = process.argv.slice(2);
if (!serverA || !serverB) throw new Error('usage: bench/cpu-ab.ts <A/server.js> <B/server.js> [target] [slices] [requests per slice]');
if (process.env.DATABASE_URL) throw new Error('bench/cpu-ab.ts picks its databases: unset DATABASE_URL (AB_POSTGRES for PostgreSQL)');
const what = (whatArg ?? 'cold') as What;
const slices = Number(slicesArg ?? 20);
const perSlice = Number(perSliceArg ?? 5000);
const coldKeys = Number(process.env.COLD_KEYS ?? 50_000);
const options = { coldKeys, redemptions: 5000 + slices * perSlice + 1000, sessions: Number(process.env.AB_SESSIONS ?? 5000) };

const admin = process.env.AB_POSTGRES ? new pg.Client({ connectionString: process.env.AB_POSTGRES }) : undefined;
await admin?.connect();
const databases = admin ? [`kw_ab_a_${process.pid}`, `kw_ab_b_${process.pid}`] : [];
for (const name of databases) await admin!.query(`create database ${name}`);
const urlOf = (name: string | undefined) => {
  if (!name) return undefined;
  const url = new URL(process.env.AB_POSTGRES!);
  url.pathname = `/${name}`;
  return url.toString();
};
const a = await startTarget(what, { ...options, serverJs: serverA, databaseUrl: urlOf(databases[0]) });
const b = await startTarget(what, { ...options, serverJs: serverB, databaseUrl: urlOf(databases[1]) });
if (availableParallelism() >= 2) {
  for (const target of [a, b]) execFileSync('taskset', ['-a', '-cp', '0', String(target.pid)], { stdio: 'ignore' });
  execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
}

const send = (target: Target, amount: number) => autocannon({ url: target.url, connections: 50, amount, requests: requestsOf(target) });
const databaseOf = new Map([a, b].map((target, i) => [target, databases[i] ?? '']));
const dbUs = new Map<Target, number>([
  [a, 0],
  [b, 0],
]);
/** µs of server CPU per request over `amount` requests (its database backends' are added up in dbUs). */
async function slice(target: Target): Promise<number> {
  const before = cpuOf(target.pid);
  const dbBefore = postgresBackendsCpuMs(databaseOf.get(target)!);
  const result = await send(target, perSlice);
  const after = cpuOf(target.pid);
  dbUs.set(target, dbUs.get(target)! + ((postgresBackendsCpuMs(databaseOf.get(target)!) - dbBefore) * 1000) / perSlice);
  if (result.non2xx > 0) throw new Error(`${result.non2xx} answers were not 2xx`);
  return ((after.user + after.system - before.user - before.system) * 1000) / perSlice;
}

await send(a, 5000);
await send(b, 5000);
const usA: number[] = [];
const usB: number[] = [];
for (let i = 0; i < slices; i++) {
  // A B, then B A: neither build always follows the other.
  if (i % 2 === 0) {
    usA.push(await slice(a));
    usB.push(await slice(b));
  } else {
    usB.push(await slice(b));
    usA.push(await slice(a));
  }
}
await Promise.all([a.kill(), b.kill()]);
for (const name of databases) await admin!.query(`drop database ${name} with (force)`);
await admin?.end();

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const ratios = usB.map((value, i) => value / usA[i]!);
const round = (value: number, digits = 1) => Number(value.toFixed(digits));
console.log(
  JSON.stringify({
    what,
    slices,
    perSlice,
    // Over all slices: a flush of the batched writes lands in some slices only, so slice medians would miss it.
    aUsPerRequest: round(sum(usA) / slices),
    bUsPerRequest: round(sum(usB) / slices),
    bOverA: round(sum(usB) / sum(usA), 3),
    ...(admin ? { aDatabaseUsPerRequest: round(dbUs.get(a)! / slices), bDatabaseUsPerRequest: round(dbUs.get(b)! / slices) } : {}),
    // Each slice's B over the A beside it: the spread says how far to trust the ratio.
    bOverAQuartiles: [round(ratios.sort((x, y) => x - y)[Math.floor(slices / 4)]!, 3), round(ratios[Math.floor((3 * slices) / 4)]!, 3)],
  }),
);
process.exit(0);
