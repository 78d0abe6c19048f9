#!/usr/bin/env node
// Runs the suites on SQLite, and on PostgreSQL when it answers. Under CI a missing PostgreSQL is a
// failure, never a silent skip. Extra arguments go to vitest (e.g. a file filter).
import { spawnSync } from 'node:child_process';
import net from 'node:net';

const pgUrl = new URL(process.env.KEYWARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port), timeout: 2000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

const projects = ['--project', 'sqlite'];
if (await reachable(pgUrl.hostname, pgUrl.port || 5432)) {
  projects.push('--project', 'postgres');
} else if (process.env.CI === 'true') {
  console.error(`PostgreSQL does not answer at ${pgUrl.host}; CI requires the PostgreSQL suite.`);
  process.exit(1);
} else {
  console.warn(`\n!! PostgreSQL does not answer at ${pgUrl.host}: SKIPPING the PostgreSQL suite (SQLite only).\n`);
}

const result = spawnSync('npx', ['vitest', 'run', ...projects, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
