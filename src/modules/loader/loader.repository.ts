import type { Db } from '../../db/database.ts';
import { sql } from 'kysely';

/** Executions counted since the last flush, for one service and its keys. */
export interface PendingExecutions {
  count: number;
  lastAt: number;
  keys: Map<string, { count: number; lastAt: number }>;
}

/**
 * Adds a batch of counted executions (ExecutionCounter) to the stored counters, in one transaction with rows
 * in a fixed order, so two instances flushing at once lock them alike. Times only move forward. A key
 * deleted since it was counted is simply not there to update.
 */
export async function addExecutions(db: Db, batch: Map<string, PendingExecutions>): Promise<void> {
  const later = (column: 'last_active_at' | 'last_used_at', at: number) =>
    sql<number>`case when ${sql.ref(column)} is null or ${sql.ref(column)} < ${at} then ${at} else ${sql.ref(column)} end`;
  await db.transaction().execute(async (trx) => {
    for (const serviceId of [...batch.keys()].sort()) {
      const counts = batch.get(serviceId)!;
      await trx
        .updateTable('services')
        .set((eb) => ({ executions: eb('executions', '+', counts.count), lastActiveAt: later('last_active_at', counts.lastAt) }))
        .where('id', '=', serviceId)
        .execute();
      for (const key of [...counts.keys.keys()].sort()) {
        const entry = counts.keys.get(key)!;
        await trx
          .updateTable('activeKeys')
          .set((eb) => ({ executions: eb('executions', '+', entry.count), lastUsedAt: later('last_used_at', entry.lastAt) }))
          .where('serviceId', '=', serviceId)
          .where('key', '=', key)
          .execute();
      }
    }
  });
}
