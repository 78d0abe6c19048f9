import type { Db } from '../../db/database.ts';
import { countKeyExecution } from '../keys/keys.repository.ts';

/**
 * One execution of a fetched script: the key's counter (when a key was used) and the service's.
 * Unlike the settings route's recordExecution it reads nothing back and opens no transaction: two
 * counters need no atomicity between them, and the fetch is the hottest write path there is.
 * False when the key is no longer an active key of the service (deleted since the verdict).
 */
export async function countFetchExecution(db: Db, serviceId: string, key: string | undefined, now: number): Promise<boolean> {
  if (key !== undefined && Number((await countKeyExecution(db, serviceId, key, now)).numUpdatedRows) === 0) return false;
  await db
    .updateTable('services')
    .set((eb) => ({ executions: eb('executions', '+', 1), lastActiveAt: now }))
    .where('id', '=', serviceId)
    .execute();
  return true;
}
