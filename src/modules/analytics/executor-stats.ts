import { sql } from 'kysely';
import type { Db, Dialect } from '../../db/database.ts';
import { DAY_MS } from '../../lib/time.ts';
import { OTHER_EXECUTOR } from '../../lib/executor.ts';
import * as repo from './executor-stats.repository.ts';

/** What one executor did in one bucket (contract §29). */
export interface ExecutorStat {
  executions: number;
  valid: number;
  /** Refusals by code. */
  refused: Map<string, number>;
  /** A maximum: the most of this executor's sessions live at once. */
  peakSessions: number;
  /** A maximum: the latest run (epoch ms). */
  lastSeen: number;
}

/** Distinct names a service keeps per UTC day; runs of any further name count as `other` (contract §29). */
export const NAMES_PER_DAY = 200;

export const newExecutorStat = (): ExecutorStat => ({ executions: 0, valid: 0, refused: new Map(), peakSessions: 0, lastSeen: 0 });

export function addExecutorStat(into: ExecutorStat, from: ExecutorStat): void {
  into.executions += from.executions;
  into.valid += from.valid;
  for (const [code, n] of from.refused) into.refused.set(code, (into.refused.get(code) ?? 0) + n);
  into.peakSessions = Math.max(into.peakSessions, from.peakSessions);
  into.lastSeen = Math.max(into.lastSeen, from.lastSeen);
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Writes the hours' executor counts into daily rows, inside the flush's transaction. The allowance of names is settled
 * where the rows are: a name the day already has keeps counting under it, a new one takes a free place, and the rest go
 * to `other`. On PostgreSQL a transaction-scoped advisory lock per service and day makes instances flushing the same day
 * take turns, so together they never keep more than the allowance; SQLite runs one writing transaction at a time.
 * Days are taken in key order, after the hourly rows, so two flushes never wait on each other in a circle.
 */
export async function writeExecutorDays(
  trx: Db,
  dialect: Dialect,
  hours: Array<{ serviceId: string; at: number; executors: Map<string, ExecutorStat> }>,
): Promise<void> {
  const days = new Map<string, { serviceId: string; day: number; stats: Map<string, ExecutorStat> }>();
  for (const { serviceId, at, executors } of hours) {
    if (executors.size === 0) continue;
    const day = at - (at % DAY_MS);
    const id = `${serviceId}\u0000${day}`;
    let entry = days.get(id);
    if (!entry) days.set(id, (entry = { serviceId, day, stats: new Map() }));
    for (const [name, stat] of executors) {
      let into = entry.stats.get(name);
      if (!into) entry.stats.set(name, (into = newExecutorStat()));
      addExecutorStat(into, stat);
    }
  }
  const ordered = [...days.values()].sort((a, b) => byText(a.serviceId, b.serviceId) || a.day - b.day);
  for (const { serviceId, day, stats } of ordered) {
    if (dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`analytics_executors:${serviceId}:${day}`}, 0))`.execute(trx);
    }
    const kept = new Set(await repo.namesOfDay(trx, serviceId, day));
    kept.delete(OTHER_EXECUTOR);
    const merged = new Map<string, ExecutorStat>();
    // Names sorted, so which new names take the last free places does not depend on the order runs came in.
    for (const name of [...stats.keys()].sort(byText)) {
      let target = name;
      if (name !== OTHER_EXECUTOR && !kept.has(name)) {
        if (kept.size < NAMES_PER_DAY) kept.add(name);
        else target = OTHER_EXECUTOR;
      }
      let into = merged.get(target);
      if (!into) merged.set(target, (into = newExecutorStat()));
      addExecutorStat(into, stats.get(name)!);
    }
    const names = [...merged.keys()].sort(byText);
    await repo.addToExecutors(
      trx,
      names.map((executor) => {
        const stat = merged.get(executor)!;
        let refused = 0;
        for (const n of stat.refused.values()) refused += n;
        return {
          serviceId,
          at: day,
          executor,
          executions: stat.executions,
          valid: stat.valid,
          refused,
          peakSessions: stat.peakSessions,
          lastSeen: stat.lastSeen,
        };
      }),
    );
    await repo.addToExecutorCodes(
      trx,
      names.flatMap((executor) =>
        [...merged.get(executor)!.refused]
          .sort(([a], [b]) => byText(a, b))
          .map(([code, count]) => ({ serviceId, at: day, executor, code, count })),
      ),
    );
  }
}
