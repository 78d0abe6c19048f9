// An import's preview (contract §27, `dryRun: true`): what the import would store, read and checked exactly as the import
// reads it, and the keys already on the server, without writing anything (no keys, no HWIDs, no audit entry).
import { parse as parseCsv } from 'csv-parse/sync';
import type { AppContext } from '../../context.ts';
import { iso } from '../../lib/time.ts';
import { parseImportOffThread } from './import-workers.ts';
import * as repo from './keys-import.repository.ts';
import { KEYWARD_FIELDS, LUARMOR_FIELDS, type ImportedKey, type ImportInput } from './keys-import.ts';

const SAMPLE_SIZE = 5;

/** Each key in exactly one: banned first, then expired, then by what it becomes (the dashboard's toast says the same). */
function countImported(keys: ImportedKey[], now: number) {
  const counts = { active: 0, generated: 0, banned: 0, expired: 0 };
  for (const k of keys) {
    if (k.status === 'banned') counts.banned++;
    else if (k.expiresAt !== null && k.expiresAt <= now) counts.expired++;
    else if (k.active) counts.active++;
    else counts.generated++;
  }
  return counts;
}

/** The field names the data carries, in the order first seen: a CSV's header, or the keys of each record. */
function fieldsOf(input: ImportInput): string[] {
  if (typeof input.data === 'string') {
    const [header] = parseCsv(input.data, { to_line: 1, bom: true, relax_column_count: true }) as string[][];
    return header ?? [];
  }
  const names = new Set<string>();
  for (const record of input.data)
    if (typeof record === 'object' && record !== null) for (const name of Object.keys(record)) names.add(name);
  return [...names];
}

const sampleOf = (k: ImportedKey) => ({
  key: k.key,
  type: k.active ? ('active' as const) : ('generated' as const),
  status: k.status,
  hwids: k.hwids,
  note: k.note,
  chatId: k.chatId,
  expiresAt: iso(k.expiresAt),
  durationDays: k.durationDays,
  executions: k.executions,
  hwidResetAt: iso(k.hwidResetAt),
  hwidResetCount: k.hwidResetCount,
  banReason: k.banReason ?? null,
});

export async function previewImport(ctx: AppContext, input: ImportInput) {
  // The same reading as the import: an invalid record is the same 400 here, before the seller confirms.
  const parsed = await parseImportOffThread(input);
  const existing = await repo.existingKeys(
    ctx.db,
    parsed.map((k) => k.key),
  );
  // With skip, the keys already there are not stored: the counts and the sample are what the import would write.
  const stored = input.onDuplicate === 'skip' ? parsed.filter((k) => !existing.has(k.key)) : parsed;
  const read = input.format === 'luarmor' ? LUARMOR_FIELDS : KEYWARD_FIELDS;
  const found = fieldsOf(input);
  return {
    dryRun: true as const,
    format: input.format,
    counts: countImported(stored, ctx.clock()),
    fields: found.filter((name) => read.has(name)),
    ignored: found.filter((name) => !read.has(name)),
    sample: stored.slice(0, SAMPLE_SIZE).map(sampleOf),
    existing: parsed.filter((k) => existing.has(k.key)).map((k) => k.key),
  };
}
