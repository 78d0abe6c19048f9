#!/usr/bin/env node
// Runs the suites on SQLite, and on PostgreSQL when it answers. Under CI a missing PostgreSQL is a
// failure, never a silent skip. Extra arguments go to vitest (e.g. a file filter).
// The browser tests use the dashboard in web/dist: it is built first when missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'web');

/** The newest modification time under a path (a file, or a folder walked whole); 0 when it does not exist. */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/**
 * Builds web/dist when it is missing or any dashboard source is newer than its index.html, so that `npm test` on a
 * fresh clone and after an edit of web/src tests the current UI. Only when the run includes browser tests: all of
 * them (no file filter), or a filter naming a browser test or the dashboard's folder. One build at a time in a
 * shared work tree (a lock folder; a build takes well under the 10 minutes after which a lock counts as abandoned).
 */
function buildDashboardIfStale(filters) {
  const wanted = filters.length === 0 || filters.some((f) => /browser|dashboard/.test(f));
  if (!wanted) return;
  const sources = Math.max(...['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => newest(join(WEB, p))));
  const built = () => newest(join(WEB, 'dist', 'index.html'));
  if (built() >= sources) return;
  const lock = join(WEB, '.build.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - newest(lock) > 600_000) rmSync(lock, { recursive: true, force: true });
      else spawnSync('sleep', ['1']);
    }
  }
  try {
    if (built() >= sources) return; // another run built it while this one waited
    console.log(built() === 0 ? 'web/dist is missing: building the dashboard' : 'web/src is newer than web/dist: rebuilding the dashboard');
    const build = spawnSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) {
      console.error('The dashboard build failed: the browser tests would test a stale or missing UI.');
      process.exit(build.status ?? 1);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const pgUrl = new URL(process.env.KEYWARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port), timeout: 2000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

// Each database's files, and (named -isolated) those that must import the app afresh (vitest.config.ts says why).
const projects = ['--project', 'sqlite', '--project', 'sqlite-isolated'];
if (await reachable(pgUrl.hostname, pgUrl.port || 5432)) {
  projects.push('--project', 'postgres', '--project', 'postgres-isolated');
} else if (process.env.CI === 'true') {
  console.error(`PostgreSQL does not answer at ${pgUrl.host}; CI requires the PostgreSQL suite.`);
  process.exit(1);
} else {
  console.warn(`\n!! PostgreSQL does not answer at ${pgUrl.host}: SKIPPING the PostgreSQL suite (SQLite only).\n`);
}

const args = process.argv.slice(2);
buildDashboardIfStale(args.filter((a) => !a.startsWith('-')));
const result = spawnSync('npx', ['vitest', 'run', ...projects, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
