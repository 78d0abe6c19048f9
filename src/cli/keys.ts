import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { AppContext } from '../context.ts';
import { AppError, invalid, notFound } from '../errors.ts';
import { SYSTEM_ACTOR } from '../modules/audit/actor.ts';
import { countFilteredKeys, filterOf } from '../modules/keys/keys-list.service.ts';
import { exportChunks, exportFileName, exportKeys, importKeys, type ImportFormat } from '../modules/keys/keys-import.service.ts';
import { findServiceByRef } from '../modules/services/services.service.ts';
import { oneChunkAhead } from '../lib/text-stream.ts';

type WithContext = <T>(run: (ctx: AppContext) => Promise<T>) => Promise<T>;

/**
 * Progress on stderr (stdout may carry the export): a redrawn bar on a terminal, else one plain line
 * per step so a log file stays readable.
 */
function progressReporter(verb: string) {
  const tty = process.stderr.isTTY === true;
  return {
    update(done: number, total: number) {
      if (!tty) return void process.stderr.write(`${verb} ${done}/${total} keys\n`);
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      process.stderr.write(`\r${verb} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}% ${done}/${total}`);
    },
    finish(message: string) {
      process.stderr.write(`${tty ? '\n' : ''}${message}\n`);
    },
  };
}

async function serviceOf(ctx: AppContext, ref: string | undefined) {
  if (!ref) throw invalid('service', 'keys commands need --service <id or identifier>');
  const service = await findServiceByRef(ctx.db, ref);
  if (!service) throw notFound('Service');
  return service;
}

async function exportCommand(withContext: WithContext, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { service: { type: 'string' }, format: { type: 'string', default: 'csv' }, out: { type: 'string' } },
    strict: true,
  });
  const format = values.format;
  if (format !== 'csv' && format !== 'json') throw invalid('format', '--format must be csv or json');
  return withContext(async (ctx) => {
    const service = await serviceOf(ctx, values.service);
    const filter = filterOf({}, ctx.clock());
    const total = await countFilteredKeys(ctx.db, service.id, filter);
    const progress = progressReporter('Exporting');
    let done = 0;
    async function* counted() {
      // In this process, not a worker: a one-shot command's memory is its own, and it has no server to keep small.
      for await (const batch of exportKeys(ctx.db, service.id, filter)) {
        yield batch;
        done += batch.length;
        progress.update(done, total);
      }
    }
    const out = values.out ? createWriteStream(values.out) : process.stdout;
    // The same text the API streams: one batch at a time, never the whole set in memory.
    await pipeline(oneChunkAhead(exportChunks(counted(), format)), out, { end: values.out !== undefined });
    progress.finish(
      `Exported ${done} keys${values.out ? ` to ${values.out}` : ''} (the API would name it ${exportFileName(service.identifier, format, ctx.clock())}).`,
    );
    return 0;
  });
}

async function importCommand(withContext: WithContext, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { service: { type: 'string' }, format: { type: 'string' }, 'skip-duplicates': { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const format = values.format as ImportFormat | undefined;
  if (format !== 'keyward-csv' && format !== 'keyward-json' && format !== 'luarmor')
    throw invalid('format', '--format must be keyward-csv, keyward-json or luarmor');
  if (positionals.length !== 1) throw invalid('file', 'keys import takes exactly one FILE');
  const text = await readFile(positionals[0]!, 'utf8');
  let data: string | unknown[] = text;
  if (format !== 'keyward-csv') {
    try {
      data = JSON.parse(text) as unknown[];
    } catch {
      throw invalid('file', `${positionals[0]} is not valid JSON`);
    }
  }
  return withContext(async (ctx) => {
    const service = await serviceOf(ctx, values.service);
    const progress = progressReporter('Importing');
    let result;
    try {
      result = await importKeys(
        ctx,
        SYSTEM_ACTOR,
        service,
        { format, data, onDuplicate: values['skip-duplicates'] ? 'skip' : 'error' },
        (done, total) => progress.update(done, total),
      );
    } catch (error) {
      // The sentence alone would hide which records to fix.
      if (error instanceof AppError && (error.extras.errors || error.extras.duplicates)) {
        console.error(`keyward: ${error.message}`);
        for (const e of error.extras.errors ?? []) console.error(`  record ${e.index}: ${e.field} ${e.error}`);
        if (error.extras.duplicates)
          console.error(`  already exist: ${error.extras.duplicates.join(', ')}\n  (--skip-duplicates imports the others)`);
        return 1;
      }
      throw error;
    }
    progress.finish(
      `Imported ${result.imported.active} active and ${result.imported.generated} generated keys; skipped ${result.skipped} that already existed.`,
    );
    return 0;
  });
}

/** `keyward keys …`: the same domain functions as the API routes (contract §7.4). */
export async function keysCommand(withContext: WithContext, argv: string[]): Promise<number | undefined> {
  const [subcommand, ...args] = argv;
  if (subcommand === 'export') return exportCommand(withContext, args);
  if (subcommand === 'import') return importCommand(withContext, args);
  return undefined;
}
