/**
 * npx tsx bench/alloc-profile.ts [hello|validate|heartbeat|…] [requests=20000] [top=30]: the bytes a request allocates,
 * by the function that allocates them, from V8's sampling heap profiler in the server (bench/alloc-sampler.mjs). Freed
 * objects count too: what a request allocates is what the young generation must collect, whether it lives or not.
 * The server is warmed up first (10,000 requests), so start-up and compilation are not in it. SERVER_JS as in
 * bench/cpu-cost.ts. ALLOC_SURVIVORS=1 counts only what outlived two scavenges (promoted to the old generation):
 * garbage there waits for a full collection, and the scavenges that copy it are the event loop's stalls.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import autocannon from 'autocannon';
import { requestsOf, startTarget, type What } from './cpu-target.ts';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const what = (process.argv[2] ?? 'validate') as What;
const requests = Number(process.argv[3] ?? 20000);
const top = Number(process.argv[4] ?? 30);
const out = join(tmpdir(), `kw-alloc-${process.pid}.json`);
process.env.ALLOC_PROFILE_OUT = out;

const target = await startTarget(what, {
  serverJs: process.env.SERVER_JS ?? 'dist/server.js',
  nodeArgs: ['--import', new URL('./alloc-sampler.mjs', import.meta.url).pathname],
  coldKeys: Number(process.env.COLD_KEYS ?? 50_000),
  redemptions: 10_000 + requests + 1000,
});
const load = (amount: number) => autocannon({ url: target.url, connections: 50, amount, requests: requestsOf(target) });
/** The sampler answers a signal by writing a file; this waits for it (the server is idle meanwhile). */
async function told(signal: NodeJS.Signals, file: string) {
  process.kill(target.pid, signal);
  for (let waited = 0; !existsSync(file); waited += 20) {
    if (waited > 30_000) throw new Error(`the server's allocation sampler did not answer ${signal}`);
    await pause(20);
  }
}

await load(10_000);
await told('SIGUSR1', `${out}.started`);
await load(requests);
await told('SIGUSR2', out);
const profile = JSON.parse(readFileSync(out, 'utf8')) as { head: ProfileNode };
await target.kill();
for (const file of [out, `${out}.started`]) rmSync(file, { force: true });

const short = (url: string) => url.replace(/^.*\/node_modules\//, '~/').replace(/^file:\/\/.*?\/(dist|src)\//, '$1/');
const bySite = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const site = `${functionName || '(anonymous)'} ${short(url)}:${lineNumber + 1}`;
  bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  total += node.selfSize;
  node.children.forEach(walk);
};
walk(profile.head);
console.log(
  `${what}: ${Math.round(total / requests)} bytes ${process.env.ALLOC_SURVIVORS === '1' ? 'promoted' : 'allocated'} per request\n`,
);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${String(Math.round(bytes / requests)).padStart(7)}  ${site}`);
