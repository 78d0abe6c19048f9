import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { AnalyticsExecutorCodesTable, AnalyticsExecutorsTable } from '../../db/schema.ts';

/** The names a service's day already keeps (at most the allowance, plus `other`). */
export async function namesOfDay(db: Db, serviceId: string, day: number): Promise<string[]> {
  const rows = await db
    .selectFrom('analyticsExecutors')
    .select('executor')
    .where('serviceId', '=', serviceId)
    .where('at', '=', day)
    .execute();
  return rows.map((r) => r.executor);
}

// Rows per statement: 8 parameters each stays far below both databases' parameter limits.
const CHUNK = 500;

/** Adds to the daily rows (upsert with +; the peak and the last run keep the larger), in the order given. */
export async function addToExecutors(db: Db, rows: Array<Insertable<AnalyticsExecutorsTable>>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('analyticsExecutors')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['serviceId', 'at', 'executor']).doUpdateSet((eb) => ({
          executions: eb('analyticsExecutors.executions', '+', eb.ref('excluded.executions')),
          valid: eb('analyticsExecutors.valid', '+', eb.ref('excluded.valid')),
          refused: eb('analyticsExecutors.refused', '+', eb.ref('excluded.refused')),
          peakSessions: sql<number>`case when excluded.peak_sessions > analytics_executors.peak_sessions then excluded.peak_sessions else analytics_executors.peak_sessions end`,
          lastSeen: sql<number>`case when excluded.last_seen > analytics_executors.last_seen then excluded.last_seen else analytics_executors.last_seen end`,
        })),
      )
      .execute();
  }
}

export async function addToExecutorCodes(db: Db, rows: Array<Insertable<AnalyticsExecutorCodesTable>>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('analyticsExecutorCodes')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc
          .columns(['serviceId', 'at', 'executor', 'code'])
          .doUpdateSet((eb) => ({ count: eb('analyticsExecutorCodes.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
}

/** Per executor over the days in [from, to): sums, the largest peak and the latest run. */
export async function executorTotals(db: Db, serviceId: string, from: number, to: number) {
  const rows = await db
    .selectFrom('analyticsExecutors')
    .select((eb) => [
      'executor',
      eb.fn.sum<number>('executions').as('executions'),
      eb.fn.sum<number>('valid').as('valid'),
      eb.fn.sum<number>('refused').as('refused'),
      eb.fn.max<number>('peakSessions').as('peakSessions'),
      eb.fn.max<number>('lastSeen').as('lastSeen'),
    ])
    .where('serviceId', '=', serviceId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .groupBy('executor')
    .execute();
  return rows.map((r) => ({
    executor: r.executor,
    executions: Number(r.executions),
    valid: Number(r.valid),
    refused: Number(r.refused),
    peakSessions: Number(r.peakSessions),
    lastSeen: Number(r.lastSeen),
  }));
}

/** Refusals per executor and code over the days in [from, to). */
export async function executorCodeTotals(db: Db, serviceId: string, from: number, to: number) {
  const rows = await db
    .selectFrom('analyticsExecutorCodes')
    .select((eb) => ['executor', 'code', eb.fn.sum<number>('count').as('count')])
    .where('serviceId', '=', serviceId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .groupBy(['executor', 'code'])
    .execute();
  return rows.map((r) => ({ executor: r.executor, code: r.code, count: Number(r.count) }));
}
