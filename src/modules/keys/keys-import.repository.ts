// An import's queries (contract §7.4): which keys exist already, and the inserts, inside the caller's transaction.
import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ActiveKeysTable, GeneratedKeysTable } from '../../db/schema.ts';

/** Which of these key strings exist anywhere on the server, in either table. */
export async function existingKeys(db: Db, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const slice = keys.slice(i, i + 500);
    const rows = await db
      .selectFrom('activeKeys')
      .select('key')
      .where('key', 'in', slice)
      .unionAll(db.selectFrom('generatedKeys').select('key').where('key', 'in', slice))
      .execute();
    for (const row of rows) found.add(row.key);
  }
  return found;
}

/** Inserts in slices: SQLite caps the number of bound parameters in one statement. */
export async function insertImported(
  trx: Db,
  active: Insertable<ActiveKeysTable>[],
  hwids: Array<{ key: string; serviceId: string; hwid: string; position: number }>,
  generated: Insertable<GeneratedKeysTable>[],
  progress?: (done: number, total: number) => void,
) {
  const SLICE = 200;
  const total = active.length + generated.length;
  for (let i = 0; i < active.length; i += SLICE) {
    await trx
      .insertInto('activeKeys')
      .values(active.slice(i, i + SLICE))
      .execute();
    progress?.(Math.min(i + SLICE, active.length), total);
  }
  for (let i = 0; i < hwids.length; i += SLICE)
    await trx
      .insertInto('keyHwids')
      .values(hwids.slice(i, i + SLICE))
      .execute();
  for (let i = 0; i < generated.length; i += SLICE) {
    await trx
      .insertInto('generatedKeys')
      .values(generated.slice(i, i + SLICE))
      .execute();
    progress?.(active.length + Math.min(i + SLICE, generated.length), total);
  }
}

/**
 * The service's all-time execution count grows by what the imported keys had run elsewhere (contract §27). Called
 * after the inserts, so the import holds the service row (which every execution flush also takes) only at its end.
 */
export async function addImportedExecutions(trx: Db, serviceId: string, executions: number) {
  if (executions === 0) return;
  await trx
    .updateTable('services')
    .set((eb) => ({ executions: eb('executions', '+', executions) }))
    .where('id', '=', serviceId)
    .execute();
}
