import type { Db, Dialect } from '../../db/database.ts';
import { HOUR_MS } from '../../lib/time.ts';
import type { Clock } from '../../lib/time.ts';
import * as repo from './analytics.repository.ts';
import { OTHER_EXECUTOR, UNKNOWN_EXECUTOR } from '../../lib/executor.ts';
import { addExecutorStat, newExecutorStat, writeExecutorDays, type ExecutorStat } from './executor-stats.ts';

type Counter = 'validations' | 'valid' | 'refused' | 'executions' | 'redemptions' | 'keySystemKeys';
type Counts = Record<Counter, number>;

const zero = (): Counts => ({ validations: 0, valid: 0, refused: 0, executions: 0, redemptions: 0, keySystemKeys: 0 });

/** One service's counts for one hour: by counter, by verdict code and by script. */
interface Bucket {
  counts: Counts;
  /** A maximum, not a count: the most live sessions seen at once (contract §18). */
  peakSessions: number;
  codes: Map<string, number>;
  scripts: Map<string, number>;
  /** By the executor each run reported (contract §29); written to daily rows. */
  executors: Map<string, ExecutorStat>;
}
/** Buckets by service id, then by hour (epoch ms): lookups by the strings callers hold, no key built per call. */
type Pending = Map<string, Map<number, Bucket>>;

const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);

/**
 * Counts what the client routes do in memory and writes the counts in batches (contract §7.5), so the
 * hot path pays a map update instead of a database write. Rows are hourly; flushes add to what is stored
 * (upsert with +), so any number of instances sum correctly. A failed flush puts its counts back.
 */
export class AnalyticsAggregator {
  private pending: Pending = new Map();
  private flushing: Promise<void> = Promise.resolve();
  /** Verdicts by code since start, kept only when /metrics is on (whatever ANALYTICS says). */
  private verdictTotals: Map<string, number> | null = null;

  constructor(
    private readonly clock: Clock,
    readonly enabled: boolean,
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  /** Starts keeping verdict totals and answers them (live): the metrics endpoint reads them. */
  keepVerdictTotals(): ReadonlyMap<string, number> {
    return (this.verdictTotals ??= new Map());
  }

  private bucket(serviceId: string): Bucket {
    const at = this.clock();
    return bucketOf(this.pending, serviceId, at - (at % HOUR_MS));
  }

  /**
   * A verdict given on /keys/validate, the loader's fetch or the Lua library's check, by the executor the run reported
   * (`unknown` when none).
   */
  countVerdict(serviceId: string, code: string, valid: boolean, executor: string = UNKNOWN_EXECUTOR): void {
    if (this.verdictTotals) add(this.verdictTotals, code, 1);
    if (!this.enabled) return;
    const bucket = this.bucket(serviceId);
    bucket.counts.validations++;
    const stat = executorStat(bucket, executor, this.clock());
    if (valid) {
      bucket.counts.valid++;
      stat.valid++;
    } else {
      bucket.counts.refused++;
      add(stat.refused, code, 1);
    }
    add(bucket.codes, code, 1);
  }

  /** One execution, as the service's `executions` counter counts it; with the script when one was fetched. */
  countExecution(serviceId: string, scriptId: string | null, executor: string = UNKNOWN_EXECUTOR): void {
    if (!this.enabled) return;
    const bucket = this.bucket(serviceId);
    bucket.counts.executions++;
    executorStat(bucket, executor, this.clock()).executions++;
    if (scriptId !== null) add(bucket.scripts, scriptId, 1);
  }

  /** A generated key became active. */
  countRedemption(serviceId: string): void {
    if (this.enabled) this.bucket(serviceId).counts.redemptions++;
  }

  /** How many sessions live now, seen when one opened: the hour keeps the most (analytics' peakSessions). */
  notePeakSessions(serviceId: string, live: number, executor?: { name: string; live: number }): void {
    if (!this.enabled) return;
    const bucket = this.bucket(serviceId);
    if (live > bucket.peakSessions) bucket.peakSessions = live;
    if (!executor) return;
    const stat = executorStat(bucket, executor.name, this.clock());
    if (executor.live > stat.peakSessions) stat.peakSessions = executor.live;
  }

  /** The key system issued a key. */
  countKeySystemKey(serviceId: string): void {
    if (this.enabled) this.bucket(serviceId).counts.keySystemKeys++;
  }

  /** Writes everything counted so far. Flushes run one after another, so a final flush waits for a running one. */
  flush(db: Db): Promise<void> {
    const next = this.flushing.then(() => this.write(db));
    this.flushing = next.catch(() => {});
    return next;
  }

  private async write(db: Db): Promise<void> {
    const batch = this.pending;
    if (batch.size === 0) return;
    this.pending = new Map();
    try {
      await writeBatch(db, this.dialect, batch);
    } catch (err) {
      this.restore(batch);
      throw err;
    }
  }

  private restore(batch: Pending): void {
    for (const [serviceId, hours] of batch) {
      for (const [at, counts] of hours) {
        const current = bucketOf(this.pending, serviceId, at);
        for (const name of Object.keys(counts.counts) as Counter[]) current.counts[name] += counts.counts[name];
        current.peakSessions = Math.max(current.peakSessions, counts.peakSessions);
        for (const [code, n] of counts.codes) add(current.codes, code, n);
        for (const [scriptId, n] of counts.scripts) add(current.scripts, scriptId, n);
        for (const [name, stat] of counts.executors) addExecutorStat(executorStat(current, name, stat.lastSeen), stat);
      }
    }
  }
}

function bucketOf(pending: Pending, serviceId: string, at: number): Bucket {
  let hours = pending.get(serviceId);
  if (!hours) pending.set(serviceId, (hours = new Map()));
  let bucket = hours.get(at);
  if (!bucket) hours.set(at, (bucket = { counts: zero(), peakSessions: 0, codes: new Map(), scripts: new Map(), executors: new Map() }));
  return bucket;
}

/**
 * Names one hour keeps in memory before the rest are counted as `other`: twice the daily allowance, so honest names are
 * not crowded out between flushes, while a flood of made-up names cannot grow memory (the flush applies the allowance).
 */
const NAMES_IN_MEMORY = 400;

function executorStat(bucket: Bucket, executor: string, now: number): ExecutorStat {
  let stat = bucket.executors.get(executor);
  if (!stat) {
    const name = bucket.executors.size >= NAMES_IN_MEMORY ? OTHER_EXECUTOR : executor;
    stat = bucket.executors.get(name);
    if (!stat) bucket.executors.set(name, (stat = newExecutorStat()));
  }
  if (now > stat.lastSeen) stat.lastSeen = now;
  return stat;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One transaction, rows in key order: two instances flushing the same rows at once lock them in the same
 * order, so PostgreSQL never deadlocks them.
 */
async function writeBatch(db: Db, dialect: Dialect, batch: Pending): Promise<void> {
  const rows = [...batch]
    .sort(([a], [b]) => byText(a, b))
    .flatMap(([serviceId, hours]) => [...hours].sort(([a], [b]) => a - b).map(([at, bucket]) => ({ serviceId, at, ...bucket })));
  const buckets = rows.map(({ serviceId, at, counts, peakSessions }) => ({ serviceId, at, ...counts, peakSessions }));
  const codes = rows.flatMap(({ serviceId, at, codes }) =>
    [...codes].sort(([a], [b]) => byText(a, b)).map(([code, count]) => ({ serviceId, at, code, count })),
  );
  const scripts = rows.flatMap(({ serviceId, at, scripts }) =>
    [...scripts].sort(([a], [b]) => byText(a, b)).map(([scriptId, executions]) => ({ serviceId, at, scriptId, executions })),
  );
  await db.transaction().execute(async (trx) => {
    await repo.addToBuckets(trx, buckets);
    await repo.addToCodes(trx, codes);
    await repo.addToScripts(trx, scripts);
    await writeExecutorDays(trx, dialect, rows);
  });
}
