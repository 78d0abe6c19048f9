/**
 * npx tsx bench/profile-summary.ts <file.cpuprofile> [top=30]: where a CPU profile's time went, by
 * self time per function and by total time per source file, without opening DevTools (PROFILE_LAST_SECONDS=n:
 * only the profile's last n seconds).
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfMicros = new Map<number, number>();
// PROFILE_LAST_SECONDS=n: only the last n seconds of the profile (the load, without the seeding before it).
// PROFILE_WINDOW=from-to: only seconds from..to of it (a bench/run.ts server's profile holds every round of its target,
// and idles after the last; PROFILE_TIMELINE=1 prints its busy share second by second, to find them).
const lastMicros = Number(process.env.PROFILE_LAST_SECONDS ?? Infinity) * 1e6;
const [fromSeconds, toSeconds] = (process.env.PROFILE_WINDOW ?? '0-Infinity').split('-').map(Number);
const endMicros = profile.timeDeltas.reduce((a, b) => a + b, 0);
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
const busyBySecond: number[] = [];
let atMicros = 0;
profile.samples.forEach((id, i) => {
  atMicros += profile.timeDeltas[i] ?? 0;
  // Percentages are of the busy time: idle samples (waiting for requests or for the database) are left out.
  if (idleIds.has(id)) return;
  const second = Math.floor(atMicros / 1e6);
  busyBySecond[second] = (busyBySecond[second] ?? 0) + (profile.timeDeltas[i] ?? 0);
  if (endMicros - atMicros > lastMicros || second < fromSeconds! || second >= toSeconds!) return;
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
if (process.env.PROFILE_TIMELINE)
  console.log(Array.from(busyBySecond, (micros, s) => `${s}:${Math.round((micros ?? 0) / 1e4)}%`).join(' '));
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url: string) => url.replace(/^.*\/node_modules\//, '~/').replace(/^file:\/\/.*\/main\//, '');
const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const selfBy = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const key = label(byId.get(id)!);
  selfBy.set(key, (selfBy.get(key) ?? 0) + micros);
}
const pct = (micros: number) => ((micros / total) * 100).toFixed(1).padStart(5) + '%';
console.log(`${(total / 1e6).toFixed(2)} s busy\n\nself time by function:`);
for (const [key, micros] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(micros)}  ${key}`);

// Total (inclusive) time per package or source file: a sample counts once for each file on its stack.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const url = byId.get(at)!.callFrame.url;
    const key = url.includes('/node_modules/')
      ? '~/' +
        url
          .split('/node_modules/')
          .pop()!
          .split('/')
          .slice(0, url.includes('/node_modules/@') ? 2 : 1)
          .join('/')
      : shortUrl(url) || '(native)';
    seen.add(key);
  }
  for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
}
console.log('\ntotal time by file or package:');
for (const [key, micros] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(micros)}  ${key}`);
