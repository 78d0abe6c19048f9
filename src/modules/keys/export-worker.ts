// One key export, run in a worker thread (export-workers.ts starts it): reads with a database connection of its own
// and sends the file's bytes to the main thread one chunk per 'pull', so it never runs ahead of the client.
import { parentPort, workerData } from 'node:worker_threads';
import { openReader } from '../../db/database.ts';
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

const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** Not top-level await: from the sources this file runs as CommonJS (export-workers.ts, workerEntry). */
async function run() {
  const reader = openReader(job.source);
  try {
    // The next chunk is read while the main thread writes this one: at most one sent and one ready.
    for await (const chunk of exportChunks(exportKeys(reader.db, job.serviceId, job.filter), job.format)) {
      await pulled();
      pulls--;
      wake = null;
      // Only a chunk that owns its whole ArrayBuffer may be transferred: a small Buffer is a slice of a shared pool.
      const owned = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : new Uint8Array(chunk);
      send({ chunk: owned }, [owned.buffer as ArrayBuffer]);
    }
    send({ done: true });
  } catch (error) {
    send({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  } finally {
    await reader.close();
    port.unref();
  }
}

void run();
