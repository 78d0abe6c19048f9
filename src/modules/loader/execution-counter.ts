import type { Db } from '../../db/database.ts';
import { addExecutions, type PendingExecutions } from './loader.repository.ts';

/**
 * Each instance's fetch executions not yet written: a fetch is the hottest path there is, and two UPDATEs
 * per fetch cost more than sending 220 KB. The flush job writes them every ANALYTICS_FLUSH_MS by adding to
 * the stored counters (so instances sum), and once more when the instance stops; a failed flush keeps its
 * counts for the next. Counters and lastUsedAt may therefore lag a fetch by that interval.
 */
export class ExecutionCounter {
  private pending = new Map<string, PendingExecutions>();
  /**
   * The batch a flush is writing: until its transaction ends the stored counters lack it, so a fetch that reads the
   * row meanwhile must still add it (a second run during a flush read LRM_TotalExecutions 1 where it was 2).
   */
  private writing: Map<string, PendingExecutions> | null = null;
  private flushing: Promise<void> = Promise.resolve();

  count(serviceId: string, key: string | undefined, at: number): void {
    let service = this.pending.get(serviceId);
    if (!service) this.pending.set(serviceId, (service = { count: 0, lastAt: at, keys: new Map() }));
    service.count += 1;
    service.lastAt = Math.max(service.lastAt, at);
    if (key === undefined) return;
    const entry = service.keys.get(key);
    if (entry) {
      entry.count += 1;
      entry.lastAt = Math.max(entry.lastAt, at);
    } else service.keys.set(key, { count: 1, lastAt: at });
  }

  /** A key's executions counted here and not yet stored, a batch being written included (LRM_TotalExecutions, §16.3). */
  pendingFor(serviceId: string, key: string): number {
    const of = (batch: Map<string, PendingExecutions> | null) => batch?.get(serviceId)?.keys.get(key)?.count ?? 0;
    return of(this.pending) + of(this.writing);
  }

  /** Writes everything counted so far; flushes run one after another. */
  flush(db: Db): Promise<void> {
    const next = this.flushing.then(() => this.write(db));
    this.flushing = next.catch(() => {});
    return next;
  }

  private async write(db: Db): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.writing = batch;
    try {
      await addExecutions(db, batch);
    } catch (err) {
      for (const [serviceId, counts] of batch) this.restore(serviceId, counts);
      throw err;
    } finally {
      this.writing = null;
    }
  }

  private restore(serviceId: string, counts: PendingExecutions): void {
    let service = this.pending.get(serviceId);
    if (!service) this.pending.set(serviceId, (service = { count: 0, lastAt: counts.lastAt, keys: new Map() }));
    service.count += counts.count;
    service.lastAt = Math.max(service.lastAt, counts.lastAt);
    for (const [key, entry] of counts.keys) {
      const current = service.keys.get(key);
      if (current) {
        current.count += entry.count;
        current.lastAt = Math.max(current.lastAt, entry.lastAt);
      } else service.keys.set(key, { ...entry });
    }
  }
}
