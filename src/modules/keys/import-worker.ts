// One import's reading and checking (keys-import.ts), run in a worker thread (import-workers.ts starts it): parsing
// 16 MB of CSV takes seconds, which on the main thread would stall every other request meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../errors.ts';
import type { FromImportWorker } from './import-workers.ts';
import { parseImport, type ImportInput } from './keys-import.ts';

let message: FromImportWorker;
try {
  message = { records: parseImport(workerData as ImportInput) };
} catch (error) {
  message =
    error instanceof AppError
      ? { refused: { code: error.code, message: error.message, extras: error.extras } }
      : { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
parentPort!.postMessage(message);
