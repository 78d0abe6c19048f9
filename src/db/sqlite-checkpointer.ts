import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

const INTERVAL_MS = 1000;
const AUTOCHECKPOINT_PAGES = 1000;

// Plain CommonJS evaluated in the worker: it opens its own connection to the file and copies the WAL back into the
// database every interval, without waiting for readers or blocking writers (PASSIVE), until told to stop.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const checkpoint = (mode) => { try { db.pragma('wal_checkpoint(' + mode + ')'); } catch {} };
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint('PASSIVE');
  db.close();
  parentPort.close();
});
`;

/**
 * Moves SQLite's WAL checkpoints off the event loop. By default the connection that commits past 1,000 WAL pages
 * copies them into the database and syncs the file inside that commit: in the server, a flush of many keys'
 * lastUsedAt then held every request for the sync (hundreds of milliseconds at p99). Here a worker thread with its
 * own connection checkpoints every second instead; if it fails, the connection checkpoints itself again, as before.
 * Returns what stops it (a last checkpoint first), to call before the connection closes.
 */
export function checkpointInBackground(sqlite: SQLite.Database, file: string): () => Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs: INTERVAL_MS } });
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopped = false;
  const fallBack = () => {
    if (!stopped && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    stopped = true;
  };
  worker.on('error', fallBack);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // The worker keeps no request alive: an idle server may exit without it.
  worker.unref();
  return async () => {
    if (stopped) return;
    fallBack();
    // Held again while it stops: an unreferenced worker lets a process with nothing else to do exit mid-await
    // (exit code 13, an unsettled top-level await: `npm run gen:api` died so after closing its app).
    worker.ref();
    worker.postMessage('stop');
    await exited;
  };
}
