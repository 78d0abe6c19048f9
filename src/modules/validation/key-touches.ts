import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Db, Dialect } from '../../db/database.ts';
import { touchKeys } from './validation.repository.ts';

// One statement per this many keys: short enough that a flush never holds many row locks for long (PostgreSQL), or
// the event loop, where SQLite runs it, for more than a few milliseconds.
const CHUNK: Record<Dialect, number> = { postgres: 1000, sqlite: 200 };
const byKey = ([a]: [string, number], [b]: [string, number]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Each instance's `lastUsedAt` of keys validated since the last flush. Real traffic is many keys, each
 * validated rarely, so a write per cold validation would cost more than the read that judges it (a WAL
 * commit each). The flush job (key-touch-flush.job.ts) writes them every ANALYTICS_FLUSH_MS, a statement
 * per chunk of keys, times only moving forward (so instances agree), and once more when the instance stops;
 * a failed flush keeps what it could not write for the next. lastUsedAt may therefore lag by that interval
 * (contract §7.5 allows 5 s).
 */
export class KeyTouches {
  private pending = new Map<string, Map<string, number>>();
  private flushing: Promise<void> = Promise.resolve();

  touch(serviceId: string, key: string, at: number): void {
    let keys = this.pending.get(serviceId);
    if (!keys) this.pending.set(serviceId, (keys = new Map()));
    const last = keys.get(key);
    if (last === undefined || last < at) keys.set(key, at);
  }

  /** How many keys wait for the next flush. */
  get size(): number {
    let n = 0;
    for (const keys of this.pending.values()) n += keys.size;
    return n;
  }

  /** Writes everything touched so far; flushes run one after another. */
  flush(db: Db, dialect: Dialect): Promise<void> {
    const next = this.flushing.then(() => this.write(db, dialect));
    this.flushing = next.catch(() => {});
    return next;
  }

  private async write(db: Db, dialect: Dialect): Promise<void> {
    if (this.pending.size === 0) return;
    // In key order: instances flushing the same keys lock their rows in one order on PostgreSQL (no deadlock), and on
    // SQLite neighbouring keys share pages, so a statement rewrites fewer of them.
    const batch = [...this.pending].map(([serviceId, keys]) => [serviceId, [...keys].sort(byKey)] as const);
    this.pending = new Map();
    for (const [s, [serviceId, entries]] of batch.entries()) {
      for (let i = 0; i < entries.length; i += CHUNK[dialect]) {
        try {
          // The requests that arrived meanwhile run between two statements of a flush (SQLite's run synchronously).
          if (i > 0 || s > 0) await yieldToRequests();
          await touchKeys(db, dialect, serviceId, entries.slice(i, i + CHUNK[dialect]));
        } catch (err) {
          // What this flush did not write goes back, for the next one.
          for (const [key, at] of entries.slice(i)) this.touch(serviceId, key, at);
          for (const [laterService, laterEntries] of batch.slice(s + 1))
            for (const [key, at] of laterEntries) this.touch(laterService, key, at);
          throw err;
        }
      }
    }
  }
}
