import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { AnalyticsBucketsTable, AnalyticsCodesTable, AnalyticsScriptsTable } from '../../db/schema.ts';

/** Hourly rows of one service in [from, to). */
export const hourlyRows = (db: Db, serviceId: string, from: number, to: number) =>
  db
    .selectFrom('analyticsBuckets')
    .select(['at', 'validations', 'valid', 'refused', 'executions', 'redemptions', 'keySystemKeys', 'peakSessions'])
    .where('serviceId', '=', serviceId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .execute();

export async function codeTotals(db: Db, serviceId: string, from: number, to: number) {
  const rows = await db
    .selectFrom('analyticsCodes')
    .select((eb) => ['code', eb.fn.sum<number>('count').as('count')])
    .where('serviceId', '=', serviceId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .groupBy('code')
    .orderBy('code')
    .execute();
  return rows.map((r) => ({ code: r.code, count: Number(r.count) }));
}

/** Executions per script over the range; scripts deleted since are left out (their name is gone). */
export async function scriptTotals(db: Db, serviceId: string, from: number, to: number) {
  const rows = await db
    .selectFrom('analyticsScripts as a')
    .innerJoin('scripts as s', (join) => join.onRef('s.id', '=', 'a.scriptId').onRef('s.serviceId', '=', 'a.serviceId'))
    .select((eb) => ['a.scriptId', 's.name', eb.fn.sum<number>('a.executions').as('executions')])
    .where('a.serviceId', '=', serviceId)
    .where('a.at', '>=', from)
    .where('a.at', '<', to)
    .groupBy(['a.scriptId', 's.name'])
    .execute();
  return rows
    .map((r) => ({ scriptId: r.scriptId, name: r.name, executions: Number(r.executions) }))
    .sort((a, b) => b.executions - a.executions || (a.scriptId < b.scriptId ? -1 : 1));
}

/** Removes the rows of services that no longer exist (the tables have no foreign key; see migration 0009). */
export async function pruneOrphanedAnalytics(db: Db): Promise<void> {
  for (const table of ['analyticsBuckets', 'analyticsCodes', 'analyticsScripts', 'analyticsExecutors', 'analyticsExecutorCodes'] as const) {
    await db
      .deleteFrom(table)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('services').select('services.id').whereRef('services.id', '=', `${table}.serviceId`))))
      .execute();
  }
}

// Rows per statement: 8 parameters each stays far below both databases' parameter limits.
const CHUNK = 500;

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

/** Adds counts to the hourly rows (upsert with +, so instances flushing the same hour sum); rows in the order given. */
export async function addToBuckets(db: Db, rows: Array<Insertable<AnalyticsBucketsTable>>): Promise<void> {
  for (const part of chunks(rows)) {
    await db
      .insertInto('analyticsBuckets')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['serviceId', 'at']).doUpdateSet((eb) => ({
          validations: eb('analyticsBuckets.validations', '+', eb.ref('excluded.validations')),
          valid: eb('analyticsBuckets.valid', '+', eb.ref('excluded.valid')),
          refused: eb('analyticsBuckets.refused', '+', eb.ref('excluded.refused')),
          executions: eb('analyticsBuckets.executions', '+', eb.ref('excluded.executions')),
          redemptions: eb('analyticsBuckets.redemptions', '+', eb.ref('excluded.redemptions')),
          keySystemKeys: eb('analyticsBuckets.keySystemKeys', '+', eb.ref('excluded.keySystemKeys')),
          // A maximum: the larger of what is stored and what this instance saw.
          peakSessions: sql<number>`case when excluded.peak_sessions > analytics_buckets.peak_sessions then excluded.peak_sessions else analytics_buckets.peak_sessions end`,
        })),
      )
      .execute();
  }
}

export async function addToCodes(db: Db, rows: Array<Insertable<AnalyticsCodesTable>>): Promise<void> {
  for (const part of chunks(rows)) {
    await db
      .insertInto('analyticsCodes')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['serviceId', 'at', 'code']).doUpdateSet((eb) => ({ count: eb('analyticsCodes.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
}

export async function addToScripts(db: Db, rows: Array<Insertable<AnalyticsScriptsTable>>): Promise<void> {
  for (const part of chunks(rows)) {
    await db
      .insertInto('analyticsScripts')
      .values(part)
      .onConflict((oc) =>
        oc
          .columns(['serviceId', 'at', 'scriptId'])
          .doUpdateSet((eb) => ({ executions: eb('analyticsScripts.executions', '+', eb.ref('excluded.executions')) })),
      )
      .execute();
  }
}
