/**
 * npx tsx bench/startup.ts [runs] — start time and memory of a server process, as `npm start` runs it.
 *
 * Starts the server `runs` times (default 7) on SQLite in a directory of its own and reports, per command,
 * the median time from spawn to its "Keyward listening on" line and the median RSS right then, summed over
 * the process and its children (the tsx command runs the server in a child process):
 *   (a) `node --enable-source-maps dist/server.js`: what `npm start` runs now (build it first: `npm run build`);
 *   (b) `tsx src/server.ts`: what `npm start` ran before the production build (commit 89aaf73);
 *   (c) with STARTUP_OLD_ROOT=<a checkout of 89aaf73 with its own npm install>: that tree's `tsx src/server.ts`.
 * One start per command is a warm-up (it creates the database; the OS caches the files) and is not counted.
 * `npm` itself is left out: `npm start` adds its own process in front of each of these.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiled, startServerProcess } from '../test/helpers/server-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.argv[2] ?? 7);
const SECRET = 'bench-secret-0123456789abcdef';

/** Resident memory of `pid` and all its descendants, in bytes (Linux /proc). */
function treeRss(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  const own = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return own + children.reduce((sum, child) => sum + treeRss(Number(child)), 0);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function measure(label: string, command: string[], cwd: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyward-startup-'));
  const env = { DATA_DIR: dataDir, KEYWARD_SECRET: SECRET, LOG_LEVEL: 'warn', DATABASE_URL: '' };
  const times: number[] = [];
  const rss: number[] = [];
  try {
    for (let run = 0; run <= RUNS; run++) {
      const started = performance.now();
      const server = await startServerProcess(env, { command, cwd });
      const ms = performance.now() - started;
      const bytes = treeRss(server.child.pid!);
      await server.stop();
      if (run === 0) continue;
      times.push(ms);
      rss.push(bytes);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const result = {
    label,
    command: command.join(' ').replace(process.execPath, 'node'),
    startMs: Math.round(median(times)),
    rssMb: Math.round(median(rss) / 1048576),
  };
  console.log(
    `${label.padEnd(34)} start ${String(result.startMs).padStart(5)} ms   RSS ${String(result.rssMb).padStart(4)} MB   (median of ${RUNS})`,
  );
  return result;
}

// Start times scale with whatever else the machine runs: say how busy it was.
console.log(
  `load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`,
);
const tsx = (root: string) => [join(root, 'node_modules/.bin/tsx'), 'src/server.ts'];
const results = [
  await measure('(a) node dist/server.js (npm start)', compiled(), ROOT),
  await measure('(b) tsx src/server.ts', tsx(ROOT), ROOT),
];
const old = process.env.STARTUP_OLD_ROOT;
if (old) results.push(await measure('(c) 89aaf73: tsx src/server.ts', tsx(old), old));
console.log(JSON.stringify(results));
