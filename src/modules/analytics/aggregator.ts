import type { Db } from '../../db/database.ts';
import { HOUR_MS } from '../../lib/time.ts';
import type { Clock } from '../../lib/time.ts';
import * as repo from './analytics.repository.ts';

type Counter = 'validations' | 'valid' | 'refused' | 'executions' | 'redemptions' | 'keySystemKeys';
type Counts = Record<Counter, number>;

const zero = (): Counts => ({ validations: 0, valid: 0, refused: 0, executions: 0, redemptions: 0, keySystemKeys: 0 });
const SEP = '\u0000';

interface Pending {
  buckets: Map<string, Counts>;
  codes: Map<string, number>;
  scripts: Map<string, number>;
}
const empty = (): Pending => ({ buckets: new Map(), codes: new Map(), scripts: new Map() });

/**
 * Counts what the client routes do in memory and writes the counts in batches (contract §7.5), so the
 * hot path pays a map update instead of a database write. Rows are hourly; flushes add to what is stored
 * (upsert with +), so any number of instances sum correctly. A failed flush puts its counts back.
 */
export class AnalyticsAggregator {
  private pending = empty();
  private flushing: Promise<void> = Promise.resolve();
  /** Verdicts by code since start, kept only when /metrics is on (whatever ANALYTICS says). */
  private verdictTotals: Map<string, number> | null = null;

  constructor(
    private readonly clock: Clock,
    readonly enabled: boolean,
  ) {}

  /** Starts keeping verdict totals and answers them (live): the metrics endpoint reads them. */
  keepVerdictTotals(): ReadonlyMap<string, number> {
    return (this.verdictTotals ??= new Map());
  }

  private hourKey(serviceId: string): string {
    const at = this.clock();
    return serviceId + SEP + (at - (at % HOUR_MS));
  }

  private bucket(hourKey: string): Counts {
    let counts = this.pending.buckets.get(hourKey);
    if (!counts) this.pending.buckets.set(hourKey, (counts = zero()));
    return counts;
  }

  /** A verdict given on /keys/validate, the loader's fetch or the Lua library's check. */
  countVerdict(serviceId: string, code: string, valid: boolean): void {
    if (this.verdictTotals) this.verdictTotals.set(code, (this.verdictTotals.get(code) ?? 0) + 1);
    if (!this.enabled) return;
    const hour = this.hourKey(serviceId);
    const counts = this.bucket(hour);
    counts.validations++;
    if (valid) counts.valid++;
    else counts.refused++;
    const key = hour + SEP + code;
    this.pending.codes.set(key, (this.pending.codes.get(key) ?? 0) + 1);
  }

  /** One execution, as the service's `executions` counter counts it; with the script when one was fetched. */
  countExecution(serviceId: string, scriptId: string | null): void {
    if (!this.enabled) return;
    const hour = this.hourKey(serviceId);
    this.bucket(hour).executions++;
    if (scriptId === null) return;
    const key = hour + SEP + scriptId;
    this.pending.scripts.set(key, (this.pending.scripts.get(key) ?? 0) + 1);
  }

  /** A generated key became active. */
  countRedemption(serviceId: string): void {
    if (this.enabled) this.bucket(this.hourKey(serviceId)).redemptions++;
  }

  /** The key system issued a key. */
  countKeySystemKey(serviceId: string): void {
    if (this.enabled) this.bucket(this.hourKey(serviceId)).keySystemKeys++;
  }

  /** Writes everything counted so far. Flushes run one after another, so a final flush waits for a running one. */
  flush(db: Db): Promise<void> {
    const next = this.flushing.then(() => this.write(db));
    this.flushing = next.catch(() => {});
    return next;
  }

  private async write(db: Db): Promise<void> {
    const batch = this.pending;
    if (batch.buckets.size === 0 && batch.codes.size === 0 && batch.scripts.size === 0) return;
    this.pending = empty();
    try {
      await writeBatch(db, batch);
    } catch (err) {
      this.restore(batch);
      throw err;
    }
  }

  private restore(batch: Pending): void {
    for (const [key, counts] of batch.buckets) {
      const current = this.pending.buckets.get(key);
      if (!current) this.pending.buckets.set(key, counts);
      else for (const name of Object.keys(counts) as Counter[]) current[name] += counts[name];
    }
    for (const [key, n] of batch.codes) this.pending.codes.set(key, (this.pending.codes.get(key) ?? 0) + n);
    for (const [key, n] of batch.scripts) this.pending.scripts.set(key, (this.pending.scripts.get(key) ?? 0) + n);
  }
}

/**
 * One transaction, rows in key order: two instances flushing the same rows at once lock them in the same
 * order, so PostgreSQL never deadlocks them.
 */
async function writeBatch(db: Db, batch: Pending): Promise<void> {
  const split = (key: string) => key.split(SEP);
  const buckets = [...batch.buckets]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, counts]) => {
      const [serviceId, at] = split(key);
      return { serviceId: serviceId!, at: Number(at), ...counts };
    });
  const codes = [...batch.codes]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, count]) => {
      const [serviceId, at, code] = split(key);
      return { serviceId: serviceId!, at: Number(at), code: code!, count };
    });
  const scripts = [...batch.scripts]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, executions]) => {
      const [serviceId, at, scriptId] = split(key);
      return { serviceId: serviceId!, at: Number(at), scriptId: scriptId!, executions };
    });
  await db.transaction().execute(async (trx) => {
    await repo.addToBuckets(trx, buckets);
    await repo.addToCodes(trx, codes);
    await repo.addToScripts(trx, scripts);
  });
}
