import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { Log } from '../../context.ts';
import type { DbSource } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import type { KeyFilter } from './keys-list.repository.ts';
import { workerEntry } from './worker-entry.ts';

/** What export-worker.ts is given. */
export interface ExportJob {
  source: DbSource;
  serviceId: string;
  filter: KeyFilter;
  format: 'csv' | 'json';
}

/** What export-worker.ts sends: that its connection is open, the file's next text, its end, or why it stopped. */
export type FromWorker = { ready: true } | { text: string } | { done: true } | { error: string };

/**
 * The worker's heap is capped, so what an export leaves behind is collected within that cap instead of filling the
 * server's old generation (README, "Not met: export memory", before). Its live heap is two batches of keys (keys-export.ts EXPORT_BATCH) and
 * its modules: ample room, and a run over the cap ends that export (logged), never the server.
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 };

/**
 * Exports running at once on one instance. Each worker costs about 25 MB plus its capped heap, so a caller looping
 * on the export route must not be able to spend the server's memory; a seller exports now and then.
 */
export const MAX_RUNNING_EXPORTS = 4;
const shuttingDown = () => new AppError('UNAVAILABLE', 'The server is shutting down; export again in a moment');
const EXPORT_RETRY_AFTER_SECONDS = 10;

/**
 * The server's running key exports, each a worker thread with a connection of its own (export-worker.ts). The
 * main thread only passes the bytes on: it asks for the next chunk when the response has taken the last one, so a
 * slow client slows the worker instead of piling chunks up in memory. A client that goes away, or close(), ends
 * the worker (and its connection) at once.
 */
export class ExportWorkers {
  private readonly workers = new Set<Worker>();
  private closed = false;

  constructor(
    private readonly source: DbSource,
    private readonly log: Log,
  ) {}

  /** How many exports are running now. */
  get running(): number {
    return this.workers.size;
  }

  /**
   * The export's text, once the worker holds its database connection: a stream that fails (and is logged) if the
   * worker does, and whose destruction ends it. A worker that cannot connect rejects with UNAVAILABLE (503) before
   * anything is answered.
   */
  async stream(serviceId: string, filter: KeyFilter, format: 'csv' | 'json'): Promise<Readable> {
    if (this.closed) throw shuttingDown();
    if (this.workers.size >= MAX_RUNNING_EXPORTS)
      throw new AppError('RATE_LIMITED', `${MAX_RUNNING_EXPORTS} key exports are running on this server; try again in a few seconds`, {
        retryAfter: EXPORT_RETRY_AFTER_SECONDS,
      });
    const { entry, eval: evaluate } = workerEntry(import.meta.url, 'export-worker');
    const job: ExportJob = { source: this.source, serviceId, filter, format };
    const worker = new Worker(entry, { eval: evaluate, workerData: job, resourceLimits: WORKER_LIMITS });
    this.workers.add(worker);
    let asked = false;
    let ended = false;
    let ready: { resolve: () => void; reject: (error: Error) => void } | undefined;
    const connected = new Promise<void>((resolve, reject) => (ready = { resolve, reject }));
    // Strings, passed to the response as they are (object mode: no Buffer made of them here; see exportChunks).
    const stream = new Readable({
      objectMode: true,
      highWaterMark: 1,
      read() {
        if (asked || ended) return;
        asked = true;
        worker.postMessage('pull');
      },
      destroy(error, callback) {
        if (!ended) void worker.terminate();
        callback(error);
      },
    });
    const fail = (error: Error) => {
      if (ended) return;
      ended = true;
      if (ready) {
        // Nothing answered yet: the route answers the error instead of a file.
        void worker.terminate();
        stream.destroy();
        if (this.closed) {
          ready.reject(shuttingDown());
          return;
        }
        this.log.error({ err: error, serviceId }, 'key export could not start');
        ready.reject(new AppError('UNAVAILABLE', 'The database did not give the export a connection; try again in a moment'));
        return;
      }
      // Whatever the worker says while the server shuts it down, the export ends as UNAVAILABLE (503), not as a
      // failure: a download not started yet is answered 503, one under way is cut short; neither is a 500.
      if (this.closed) {
        this.log.warn({ serviceId }, 'key export ended by the shutdown');
        stream.destroy(shuttingDown());
        return;
      }
      this.log.error({ err: error, serviceId }, 'key export failed');
      stream.destroy(error);
    };
    worker.on('message', (message: FromWorker) => {
      if ('ready' in message) {
        ready?.resolve();
        ready = undefined;
      } else if ('text' in message) {
        asked = false;
        stream.push(message.text);
      } else if ('done' in message) {
        ended = true;
        stream.push(null);
      } else fail(new Error(`the export worker failed: ${message.error}`));
    });
    worker.on('error', fail);
    worker.on('exit', (code) => {
      this.workers.delete(worker);
      // After the client left the stream is destroyed already; after close() it is cut here.
      if (!stream.destroyed || ready) fail(new Error(`the export worker exited (code ${code}) too early`));
    });
    await connected;
    return stream;
  }

  /** Ends every running export (their responses are cut short) and refuses new ones: the server is stopping. */
  async close(): Promise<void> {
    this.closed = true;
    const exits = [...this.workers].map((worker) => new Promise((resolve) => worker.once('exit', resolve)));
    for (const worker of this.workers) void worker.terminate();
    await Promise.all(exits);
  }
}
