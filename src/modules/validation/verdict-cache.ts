import type { Log } from '../../context.ts';
import type { Write, WriteObserver } from '../../db/write-observer.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
import { InvalidatingCache } from '../../db/invalidating-cache.ts';
import type { Clock } from '../../lib/time.ts';
import { NOT_NOW, type VerdictInputs } from './validation.repository.ts';

const TOPIC = 'verdict';
const cacheKey = (serviceId: string, key: string, hwid: string) => `${serviceId}\n${key}\n${hwid}`;
const LIMIT = 50_000;
// The rows a verdict of an active key is made of (a deleted service takes its keys with it).
const TABLES = new Set(['active_keys', 'key_hwids', 'blacklist', 'services']);
// What validation itself writes as it goes; it decides no verdict.
const BOOKKEEPING = new Set(['last_used_at', 'executions', 'last_active_at']);

/** Whether a write can change what a cached verdict was made of. */
function changesVerdicts(write: Write): boolean {
  if (!TABLES.has(write.table)) return false;
  // New keys and their first HWIDs (redeeming, generating, importing) are rows no copy was made of; a new ban is not.
  if (write.kind === 'insert' && !write.upsert) return write.table === 'blacklist';
  if (write.columns) return write.columns.some((column) => !BOOKKEEPING.has(column));
  return true;
}

/**
 * Each instance's short-lived copies of what judging an active key reads (the key row, whether the HWID is
 * banned, whether it is bound), so a key validated in a loop costs no query. Every write to those tables,
 * from any code path, drops all copies here at once and on every other instance through the bus
 * (PostgreSQL NOTIFY or Redis); the TTL (VERDICT_CACHE_MS, at most a second) bounds what a lost message or
 * a read racing an uncommitted write could leave behind.
 */
export class VerdictCache {
  private readonly entries: InvalidatingCache<VerdictInputs>;
  private readonly stopWatching: () => void;

  constructor(deps: { bus: InvalidationBus; clock: Clock; writes: WriteObserver | undefined; log: Log }, ttlMs: number) {
    this.entries = new InvalidatingCache(deps, TOPIC, ttlMs, LIMIT);
    let told = false;
    this.stopWatching =
      deps.writes?.listen((write) => {
        if (!changesVerdicts(write)) return;
        this.entries.invalidate('*');
        // One message per tick however many rows a bulk action writes.
        if (told) return;
        told = true;
        queueMicrotask(() => {
          told = false;
          deps.bus.publish(TOPIC, '*').catch((err: unknown) => deps.log.warn({ err }, 'verdict invalidation not published'));
        });
      }) ?? (() => {});
  }

  /**
   * The cached inputs, or `loadNow`'s (NOT_NOW when it cannot read without a promise). A read made at once cannot race a
   * write of this instance, so it is stored without the generation check of `get`.
   */
  getNow(
    serviceId: string,
    key: string,
    hwid: string,
    loadNow: () => VerdictInputs | undefined | typeof NOT_NOW,
  ): VerdictInputs | undefined | typeof NOT_NOW {
    const entry = cacheKey(serviceId, key, hwid);
    const hit = this.entries.peek(entry);
    if (hit) return hit;
    const loaded = loadNow();
    if (loaded !== undefined && loaded !== NOT_NOW) this.entries.store(entry, loaded);
    return loaded;
  }

  get(serviceId: string, key: string, hwid: string, load: () => Promise<VerdictInputs | undefined>): Promise<VerdictInputs | undefined> {
    return this.entries.get(cacheKey(serviceId, key, hwid), load);
  }

  close(): void {
    this.stopWatching();
  }
}
