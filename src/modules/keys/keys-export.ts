// Contract §7.4's export: reading the keys and writing them as CSV or JSON bytes. The server runs it in a worker
// thread (export-workers.ts); the CLI in its own process.
import type { Db } from '../../db/database.ts';
import type { ListedKey } from './keys-list.service.ts';
import * as repo from './keys-list.repository.ts';
import { hwidsOf } from './keys.repository.ts';
import { toActiveKeyView, toGeneratedKeyView } from './keys.service.ts';
import { EXPORT_COLUMNS, joinHwids, neutralized } from './keys-csv.ts';

export { EXPORT_COLUMNS } from './keys-csv.ts';

/** An exported record: the list record, so JSON export is what the listing shows. */
export type ExportRecord = ListedKey;

/**
 * Keys a batch. The worker's heap is capped (export-workers.ts): with 1,000 keys a batch, the batch being formatted and
 * the one read ahead were alive at each young-generation collection, which copied and promoted them, and a million
 * keys spent about half of the worker's CPU collecting (24.5 s against 16–19 s at 100–500 keys a batch, and 34 MB of
 * peak growth against 7–13). One PostgreSQL round trip per 250 keys is hidden by the read ahead.
 */
export const EXPORT_BATCH = 250;

/**
 * A keyset walk that asks for the next batch as soon as this one's last key is known, then finishes this one (its
 * HWIDs, its records) and hands it over: on PostgreSQL the database reads batch n + 1 while the caller turns batch n
 * into bytes (bench/export-import.ts). At most two batches are held. A read the caller never takes (it stopped early)
 * is dropped, its failure with it.
 */
async function* readAhead<Row extends { key: string }, Out>(
  read: (after: string | null) => Promise<Row[]>,
  finish: (rows: Row[]) => Promise<Out[]> | Out[],
): AsyncGenerator<Out[]> {
  let rows = await read(null);
  while (rows.length > 0) {
    // Finishing first puts this batch's own query ahead of the next batch's on the connection.
    const finished = finish(rows);
    const next = rows.length < EXPORT_BATCH ? null : read(rows[rows.length - 1]!.key);
    next?.catch(() => {});
    yield await finished;
    if (!next) return;
    rows = await next;
  }
}

/**
 * Every matching key, active ones first then generated, each kind in key order. Reads by keyset in
 * batches so a million keys never sit in memory at once; the caller writes each batch out as it comes.
 * `db` is the server's (the CLI) or a connection of the export's own (export-worker.ts).
 */
export async function* exportKeys(db: Db, serviceId: string, filter: repo.KeyFilter): AsyncGenerator<ExportRecord[]> {
  if (repo.includesActive(filter)) {
    yield* readAhead(
      (after) => repo.activeBatchAfter(db, serviceId, filter, after, EXPORT_BATCH),
      async (rows) => {
        const hwids = await hwidsOf(
          db,
          rows.filter((r) => r.hwidCount > 0).map((r) => r.key),
        );
        return rows.map((row) => ({
          type: 'active' as const,
          ...toActiveKeyView({ ...row, hwids: hwids.get(row.key) ?? [] }, filter.now),
        }));
      },
    );
  }
  if (repo.includesGenerated(filter)) {
    yield* readAhead(
      (after) => repo.generatedBatchAfter(db, serviceId, filter, after, EXPORT_BATCH),
      (rows) => rows.map((row) => ({ type: 'generated' as const, ...toGeneratedKeyView(row, filter.now) })),
    );
  }
}

/** One CSV row's values, in EXPORT_COLUMNS order (hwids joined by `|`, see joinHwids; booleans as words, missing as empty). */
export function csvValues(record: ExportRecord): string[] {
  const active = record.type === 'active' ? record : undefined;
  return [
    record.key,
    record.type,
    record.status,
    active ? joinHwids(active.hwids) : '',
    record.note ?? '',
    String(record.isPremium),
    String(record.noHwidValidation),
    String(record.maxHwids),
    record.expiresAt ?? '',
    record.chatId ?? '',
    String(active ? active.executions : 0),
    record.createdAt,
    active?.activatedAt ?? '',
    active?.lastUsedAt ?? '',
    // An unused key's days from redemption, or a bound key's from its first validation (contract §23).
    record.durationDays !== null ? String(record.durationDays) : '',
  ];
}

/** One CSV cell as csv-stringify writes it by default (quoted, quotes doubled, when it holds `"`, `,`, CR or LF), neutralized. */
const csvCell = (raw: string) => {
  const value = neutralized(raw);
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
};

/** One CSV line (CRLF-terminated) of a record, in EXPORT_COLUMNS order; no array beyond the values (a million keys' garbage). */
export function csvLine(record: ExportRecord): string {
  const values = csvValues(record);
  let line = csvCell(values[0]!);
  for (let i = 1; i < values.length; i++) line += ',' + csvCell(values[i]!);
  return line + '\r\n';
}

/**
 * The export's text, one batch of keys at a time: nothing holds the whole set. Each batch leaves as one string, not a
 * Buffer: the server's main thread receives it from the worker on its own heap, where the collector frees it with
 * the next young-generation pass, whereas a Buffer's bytes sit outside the heap until a collection the main thread,
 * making little garbage while it relays, would put off for about 64 MB (README, "Measured: 1,000,000 keys").
 * Lines are built by hand (csvLine) rather than through csv-stringify: same bytes, less garbage per key.
 */
export async function* exportChunks(records: AsyncIterable<ExportRecord[]>, format: 'csv' | 'json'): AsyncGenerator<string> {
  if (format === 'csv') {
    yield EXPORT_COLUMNS.join(',') + '\r\n';
    for await (const batch of records) {
      let text = '';
      for (const record of batch) text += csvLine(record);
      yield text;
    }
    return;
  }
  let first = true;
  yield '[';
  for await (const batch of records) {
    let text = '';
    for (const record of batch) {
      text += (first ? '' : ',') + JSON.stringify(record);
      first = false;
    }
    yield text;
  }
  yield ']';
}

export const exportFileName = (identifier: string, format: 'csv' | 'json', now: number) =>
  `${identifier}-keys-${new Date(now).toISOString().slice(0, 10)}.${format}`;
