import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Db } from '../../db/database.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
import type { Clock } from '../../lib/time.ts';
import { InvalidatingCache } from '../../db/invalidating-cache.ts';
import { compileExecutorRule, findScript, readBlob, SCRIPT_TOPIC, type CompiledExecutorRule } from '../scripts/scripts.service.ts';

const gzip = promisify(gzipCallback);

/** What the fetch route needs of a script row. */
export interface DeliverableScript {
  id: string;
  serviceId: string;
  status: string;
  outputBlob: string | null;
  outputSize: number | null;
  /** Hex SHA-256 of the output (X-Script-SHA256) and the version it comes from (X-Script-Version). */
  outputSha256: string | null;
  version: number;
  enabled: boolean;
  disabledMessage: string | null;
  /** Contract §16.3: the name and free-for-all flag the LRM_ globals and an ffa run need. */
  name: string;
  ffa: boolean;
  /** Every run opens a live session (contract §18). */
  heartbeat: boolean;
  /** Which executors it runs on (contract §29), ready to answer a run; null: any. */
  executors: CompiledExecutorRule | null;
}

export interface CachedCode {
  body: Buffer;
  /** Compressed once, the first time a client that accepts gzip asks. */
  gzip: Promise<Buffer> | null;
}

/** A backstop only: every change publishes an invalidation, this bounds a lost message's effect. */
const ROW_TTL_MS = 30_000;
const ROW_LIMIT = 10_000;

/**
 * Per app instance: script rows by id (invalidated through the bus on every change) and code blobs by
 * blob id. Blobs are immutable (new code is a new blob), so a cached blob is never stale; the byte
 * budget only bounds memory, least recently used first. Blobs over a quarter of the budget are
 * streamed from the database each time instead, so a 40 MB script never sits in memory.
 */
export class DeliveryCache {
  private readonly rows: InvalidatingCache<DeliverableScript>;
  private readonly blobs = new Map<string, CachedCode>();
  private readonly loading = new Map<string, Promise<CachedCode>>();
  private bytes = 0;

  private readonly db: Db;

  constructor(
    deps: { db: Db; bus: InvalidationBus; clock: Clock },
    readonly maxBytes: number,
  ) {
    this.db = deps.db;
    this.rows = new InvalidatingCache(deps, SCRIPT_TOPIC, ROW_TTL_MS, ROW_LIMIT);
  }

  /** The script's row when it is cached now, without a lookup (the hot lane's budget needs its service at once). */
  peekScript(id: string): DeliverableScript | undefined {
    return this.rows.peek(id);
  }

  script(id: string): Promise<DeliverableScript | undefined> {
    return this.rows.get(id, async () => {
      const row = await findScript(this.db, id);
      return (
        row && {
          id: row.id,
          serviceId: row.serviceId,
          status: row.status,
          outputBlob: row.outputBlob,
          outputSize: row.outputSize,
          outputSha256: row.outputSha256,
          version: row.currentVersion,
          enabled: row.enabled === 1,
          disabledMessage: row.disabledMessage,
          name: row.name,
          ffa: row.ffa === 1,
          heartbeat: row.heartbeat === 1,
          executors: compileExecutorRule(row.executors),
        }
      );
    });
  }

  /** The whole blob from memory, or null when it is too large to keep (the caller streams it). */
  async code(blobId: string, size: number): Promise<CachedCode | null> {
    if (size > this.maxBytes / 4) return null;
    const hit = this.blobs.get(blobId);
    if (hit) {
      // Re-inserted so the Map's order is least recently used first.
      this.blobs.delete(blobId);
      this.blobs.set(blobId, hit);
      return hit;
    }
    let pending = this.loading.get(blobId);
    if (!pending) {
      pending = this.load(blobId, size).finally(() => this.loading.delete(blobId));
      this.loading.set(blobId, pending);
    }
    return pending;
  }

  gzipped(entry: CachedCode): Promise<Buffer> {
    return (entry.gzip ??= gzip(entry.body, { level: 9 }));
  }

  private async load(blobId: string, size: number): Promise<CachedCode> {
    const parts: Buffer[] = [];
    for await (const chunk of readBlob(this.db, blobId, size)) parts.push(chunk);
    const entry: CachedCode = { body: parts.length === 1 ? parts[0]! : Buffer.concat(parts), gzip: null };
    this.bytes += entry.body.length;
    this.blobs.set(blobId, entry);
    for (const [id, old] of this.blobs) {
      if (this.bytes <= this.maxBytes) break;
      this.blobs.delete(id);
      this.bytes -= old.body.length;
    }
    return entry;
  }
}
