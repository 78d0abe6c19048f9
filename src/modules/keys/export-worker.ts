// One key export, run in a worker thread (export-workers.ts starts it): reads with a database connection of its own
// and sends the file's text to the main thread one chunk per 'pull', so it never runs ahead of the client.
import { parentPort, workerData } from 'node:worker_threads';
import { sql } from 'kysely';
import { openReader, type DbHandle } from '../../db/database.ts';
import { exportChunks, exportKeys } from './keys-export.ts';
import type { ExportJob, FromWorker } from './export-workers.ts';

const port = parentPort!;
const job = workerData as ExportJob;

let pulls = 0;
let wake: (() => void) | null = null;
port.on('message', () => {
  pulls++;
  wake?.();
});
const pulled = () =>
  pulls > 0
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        wake = resolve;
      });

const send = (message: FromWorker) => port.postMessage(message);

/** Not top-level await: from the sources this file runs as CommonJS (export-workers.ts, workerEntry). */
async function run() {
  let reader: DbHandle | undefined;
  try {
    reader = openReader(job.source);
    // Connected before the answer starts: a database that refuses the connection (PostgreSQL's max_connections
    // reached) is then a 503 the client can retry, not a file cut after its first line.
    await sql`select 1`.execute(reader.db);
    send({ ready: true });
    // The next chunk is read while the main thread writes this one: at most one sent and one ready.
    for await (const text of exportChunks(exportKeys(reader.db, job.serviceId, job.filter), job.format)) {
      await pulled();
      pulls--;
      wake = null;
      send({ text });
    }
    send({ done: true });
  } catch (error) {
    send({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  } finally {
    await reader?.close();
    port.unref();
  }
}

void run();
