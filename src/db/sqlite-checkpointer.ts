import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { reloadStatistics, STATISTICS_SOURCE } from './sqlite-statistics.ts';

const INTERVAL_MS = 1000;
const AUTOCHECKPOINT_PAGES = 1000;
/** How often the worker looks at the tables' sizes (a count of each, read only); the first look comes after one. */
const STATISTICS_EVERY_MS = 5 * 60_000;
/** Tables smaller than this get no statistics: every plan is quick there. */
const STATISTICS_MIN_ROWS = 10_000;

// Plain CommonJS evaluated in the worker: it opens its own connection to the file and copies the WAL back into the
// database every interval, without waiting for readers or blocking writers (PASSIVE), until told to stop. Now and
// then it also refreshes the planner's statistics (sqlite-statistics.ts) and says which tables it wrote.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
${STATISTICS_SOURCE}
const checkpoint = (mode) => { try { db.pragma('wal_checkpoint(' + mode + ')'); } catch {} };
const statistics = () => {
  try { return { tables: refreshStatistics(workerData.minRows) }; } catch (error) { return { tables: [], error: String(error) }; }
};
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.intervalMs);
const statisticsTimer = setInterval(() => {
  const done = statistics();
  if (done.tables.length > 0) parentPort.postMessage({ type: 'statistics', ...done });
}, workerData.statisticsEveryMs);
parentPort.on('message', (message) => {
  if (message === 'statistics') return parentPort.postMessage({ type: 'statistics', asked: true, ...statistics() });
  clearInterval(timer);
  clearInterval(statisticsTimer);
  checkpoint('PASSIVE');
  db.close();
  parentPort.close();
});
`;

/** What a refresh of the statistics wrote: each table counted again, with its rows. */
export interface StatisticsRefresh {
  tables: { table: string; rows: number }[];
  error?: string;
}

export interface BackgroundWork {
  /** Stops the worker (a last checkpoint first), to call before the connection closes. */
  stop(): Promise<void>;
  /** Refreshes the statistics now rather than at the next look. */
  refreshStatistics(): Promise<StatisticsRefresh>;
}

/**
 * Moves SQLite's WAL checkpoints, and the upkeep of the planner's statistics, off the event loop. By default the
 * connection that commits past 1,000 WAL pages copies them into the database and syncs the file inside that commit:
 * in the server, a flush of many keys' lastUsedAt then held every request for the sync (hundreds of milliseconds at
 * p99). Here a worker thread with its own connection checkpoints every second instead; if it fails, the connection
 * checkpoints itself again, as before.
 */
export function checkpointInBackground(sqlite: SQLite.Database, file: string): BackgroundWork {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file, intervalMs: INTERVAL_MS, statisticsEveryMs: STATISTICS_EVERY_MS, minRows: STATISTICS_MIN_ROWS },
  });
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopped = false;
  const fallBack = () => {
    if (!stopped && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    stopped = true;
  };
  const asked: ((refresh: StatisticsRefresh) => void)[] = [];
  const answerAll = (error: string) => asked.splice(0).forEach((resolve) => resolve({ tables: [], error }));
  worker.on('message', (message: StatisticsRefresh & { type: string; asked?: boolean }) => {
    if (message.type !== 'statistics') return;
    if (message.tables.length > 0) reloadStatistics(sqlite);
    if (!message.asked) return;
    asked.shift()?.({ tables: message.tables, ...(message.error !== undefined && { error: message.error }) });
    if (asked.length === 0 && !stopped) worker.unref();
  });
  worker.on('error', () => {
    fallBack();
    answerAll('the background worker failed');
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // The worker keeps no request alive: an idle server may exit without it.
  worker.unref();
  return {
    refreshStatistics: () =>
      stopped
        ? Promise.resolve({ tables: [], error: 'the background worker is not running' })
        : new Promise((resolve) => {
            asked.push(resolve);
            // Held while it answers, as while it stops (below).
            worker.ref();
            worker.postMessage('statistics');
          }),
    stop: async () => {
      if (stopped) return;
      fallBack();
      // Held again while it stops: an unreferenced worker lets a process with nothing else to do exit mid-await
      // (exit code 13, an unsettled top-level await: `npm run gen:api` died so after closing its app).
      worker.ref();
      worker.postMessage('stop');
      await exited;
      answerAll('the background worker stopped');
    },
  };
}
