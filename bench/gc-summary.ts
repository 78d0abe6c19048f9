/**
 * npx tsx bench/gc-summary.ts <file> [requests]: what V8's collector did, from the server's `--trace-gc-nvp` lines
 * (NODE_ARGS=--trace-gc-nvp SERVER_STDOUT=<file> npx tsx bench/cpu-cost.ts …): collections and their pauses by kind,
 * and the bytes the young generation saw allocated. With `requests`, each also per request (the whole life of the
 * process is counted, so the seeding and warm-up are in it: compare targets measured alike).
 */
import { readFileSync } from 'node:fs';

const [file, requestsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/gc-summary.ts <file of --trace-gc-nvp lines> [requests]');
const requests = Number(requestsArg ?? 0);

// V8's names: s a scavenge, mc a full mark-compact, ms a minor mark-sweep.
const byKind = new Map<string, { count: number; pauseMs: number }>();
let allocatedBytes = 0;
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line.includes('pause=')) continue;
  const fields = new Map(line.split(' ').map((pair) => pair.split('=') as [string, string]));
  const kind = fields.get('gc') ?? '?';
  const entry = byKind.get(kind) ?? { count: 0, pauseMs: 0 };
  entry.count++;
  entry.pauseMs += Number(fields.get('pause'));
  byKind.set(kind, entry);
  allocatedBytes += Number(fields.get('allocated') ?? 0);
}
const perRequest = (n: number, unit: number) => (requests ? Number(((n * unit) / requests).toFixed(2)) : undefined);
console.log(
  JSON.stringify({
    kinds: Object.fromEntries([...byKind].map(([kind, { count, pauseMs }]) => [kind, { count, pauseMs: Math.round(pauseMs) }])),
    allocatedMB: Math.round(allocatedBytes / 1e6),
    pauseUsPerRequest: perRequest(
      [...byKind.values()].reduce((sum, e) => sum + e.pauseMs, 0),
      1000,
    ),
    allocatedKBPerRequest: perRequest(allocatedBytes, 1 / 1000),
  }),
);
