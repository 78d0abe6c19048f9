import type { InvalidationBus } from './invalidation.ts';
import type { Clock } from '../lib/time.ts';

/**
 * A small per-instance cache of rows read from the database, kept true by the invalidation bus: every
 * change publishes (topic, key) after it commits and every instance drops that key. The TTL is a
 * backstop that bounds the effect of a lost message; a read that raced an invalidation is not stored
 * (the generation check), so a stale row can never outlive the message that should have removed it.
 */
export class InvalidatingCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  /** Loads under way: callers missing the same key at once share one read instead of queueing one each. */
  private readonly loading = new Map<string, Promise<T | undefined>>();
  private generation = 0;

  constructor(
    owner: { bus: InvalidationBus; clock: Clock },
    readonly topic: string,
    private readonly ttlMs: number,
    private readonly limit: number,
    private readonly clock: Clock = owner.clock,
  ) {
    owner.bus.subscribe(topic, (key) => this.invalidate(key));
  }

  /** Drops `key` ('*': everything) here and now; a read in flight is not stored. */
  invalidate(key: string): void {
    this.generation++;
    // A caller arriving after this must not join a read that began before the change.
    if (key === '*') {
      this.entries.clear();
      this.loading.clear();
    } else {
      this.entries.delete(key);
      this.loading.delete(key);
    }
  }

  /** The cached value if a current one is held: lets a hot path answer without a promise. */
  peek(key: string): T | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > this.clock() ? hit.value : undefined;
  }

  /** The cached value, or `load`'s; undefined (nothing found) is not cached, so a new row shows at once. */
  async get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    if (this.ttlMs <= 0) return load();
    const pending = this.loading.get(key);
    if (pending) return pending;
    const loaded = this.load(key, load, now).finally(() => {
      if (this.loading.get(key) === loaded) this.loading.delete(key);
    });
    this.loading.set(key, loaded);
    return loaded;
  }

  /** Keeps a value read at once (no write could come between the read and this call); nothing with a TTL of 0. */
  store(key: string, value: T, now: number = this.clock()): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: now + this.ttlMs });
  }

  private async load(key: string, load: () => Promise<T | undefined>, now: number): Promise<T | undefined> {
    const generation = this.generation;
    const value = await load();
    if (value !== undefined && generation === this.generation) this.store(key, value, now);
    return value;
  }
}
