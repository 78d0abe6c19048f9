import { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode, type ErrorExtras } from '../../errors.ts';
import { MAX_IMPORT_RECORDS, parseImport, type ImportedKey, type ImportInput } from './keys-import.ts';
import { workerEntry } from './worker-entry.ts';

/** What import-worker.ts answers: the records, the import's refusal (a 4xx), or a bug. */
export type FromImportWorker =
  { records: ImportedKey[] } | { refused: { code: ErrorCode; message: string; extras: ErrorExtras } } | { failed: string };

/**
 * Room for the parse of a 16 MB body (a row of millions of empty cells is an array of millions of strings); past it
 * the worker ends and the import is refused, never the server.
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 32 };

/**
 * parseImport, off the event loop: reading and checking an import of up to 16 MB takes seconds, during which the
 * server must keep answering (contract §14: /healthz and /keys/validate within 250 ms). A JSON body over the record
 * limit is refused here at once, without copying it to the worker.
 */
export async function parseImportOffThread(input: ImportInput): Promise<ImportedKey[]> {
  if (Array.isArray(input.data) && input.data.length > MAX_IMPORT_RECORDS) return parseImport(input);
  if (running >= MAX_RUNNING_IMPORTS)
    throw new AppError('RATE_LIMITED', `${MAX_RUNNING_IMPORTS} key imports are being read on this server; try again in a few seconds`, {
      retryAfter: IMPORT_RETRY_AFTER_SECONDS,
    });
  running++;
  try {
    return await parseInWorker(input);
  } finally {
    running--;
  }
}

/** Imports being read at once in this process. Each worker may take up to its heap cap, so they are few. */
export const MAX_RUNNING_IMPORTS = 2;
const IMPORT_RETRY_AFTER_SECONDS = 10;
let running = 0;

function parseInWorker(input: ImportInput): Promise<ImportedKey[]> {
  const { entry, eval: evaluate } = workerEntry(import.meta.url, 'import-worker');
  const worker = new Worker(entry, { eval: evaluate, workerData: input, resourceLimits: WORKER_LIMITS });
  return new Promise<ImportedKey[]>((resolve, reject) => {
    let answered = false;
    worker.once('message', (message: FromImportWorker) => {
      answered = true;
      if ('records' in message) resolve(message.records);
      else if ('refused' in message) reject(new AppError(message.refused.code, message.refused.message, message.refused.extras));
      else reject(new Error(`the import worker failed: ${message.failed}`));
    });
    worker.once('error', (error: Error & { code?: string }) => {
      answered = true;
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
        reject(new AppError('PAYLOAD_TOO_LARGE', 'This import is too large to check; split it into smaller files', { field: 'data' }));
      else reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the import worker exited (code ${code}) without an answer`));
    });
  });
}
