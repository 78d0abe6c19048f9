import type { Db, Dialect } from '../../db/database.ts';
import * as repo from './sessions.repository.ts';
import {
  deadlineOf,
  ENDED_KEPT_MS,
  newSessionId,
  type Beat,
  type EndReason,
  type LiveSession,
  type LiveSessions,
  type OpenRequest,
  type Opened,
  type SessionFilter,
  type SessionSelector,
} from './live-sessions.ts';

const sessionOf = (row: repo.SessionRow): LiveSession => ({
  sessionId: row.id,
  serviceId: row.serviceId,
  key: row.key,
  hwid: row.hwid,
  scriptId: row.scriptId,
  heartbeatSeconds: row.heartbeatSeconds,
  startedAt: row.startedAt,
  lastSeenAt: row.lastSeenAt,
  keyExpiresAt: row.keyExpiresAt,
});

// At most this many heartbeats share one read.
const READ_BATCH = 500;
// At most this many extended key expiries are remembered per instance; a forgotten one costs one more key read.
const MOVED_EXPIRIES_LIMIT = 50_000;

/**
 * Live sessions in the database (no REDIS_URL). A heartbeat reads its row (so an end made on any instance shows at the
 * next heartbeat) and writes nothing: the time is kept in memory and the session-flush job writes the batch every
 * SESSION_FLUSH_MS, well inside the shortest heartbeat period (10 s), so a live session's row never looks two periods
 * old. An open takes the key's lock (sessions.repository.ts lockKeyForOpen), counts and inserts in one transaction.
 */
export class LiveSessionsInDatabase implements LiveSessions {
  private pending = new Map<string, number>();
  private readonly movedExpiries = new Map<string, number | null>();
  private flushing: Promise<void> = Promise.resolve();
  private lastPruneAt = 0;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  async open(request: OpenRequest): Promise<Opened> {
    const { serviceId, key, now } = request;
    const row: repo.SessionRow = {
      id: newSessionId(),
      serviceId,
      key,
      hwid: request.hwid,
      scriptId: request.scriptId,
      heartbeatSeconds: request.heartbeatSeconds,
      startedAt: now,
      lastSeenAt: now,
      keyExpiresAt: request.keyExpiresAt,
      endedReason: null,
      endedAt: null,
    };
    if (key === null || request.maxSessions <= 0) {
      await repo.insertSession(this.db, row);
    } else {
      const opened = await this.db.transaction().execute(async (trx) => {
        await repo.lockKeyForOpen(trx, this.dialect, serviceId, key);
        if ((await repo.countLiveOfKey(trx, serviceId, key, now)) >= request.maxSessions) return false;
        await repo.insertSession(trx, row);
        return true;
      });
      if (!opened) return 'limit';
    }
    return { sessionId: row.id, expiresAt: deadlineOf(now, row.heartbeatSeconds) };
  }

  /**
   * A session's row, read now: at once on SQLite; on PostgreSQL in a batch with the other heartbeats waiting (one
   * statement in flight at a time, so under load each round trip answers many heartbeats, and none reads a copy).
   */
  private async read(serviceId: string, sessionId: string): Promise<repo.SessionRow | undefined> {
    const now = repo.findSessionNow(this.db, serviceId, sessionId);
    if (now) return now[0];
    const row = await new Promise<repo.SessionRow | undefined>((resolve, reject) => {
      this.waiting.push({ id: sessionId, resolve, reject });
      this.readBatch();
    });
    return row?.serviceId === serviceId ? row : undefined;
  }

  private readonly waiting: Array<{ id: string; resolve: (row: repo.SessionRow | undefined) => void; reject: (err: unknown) => void }> = [];
  private reading = false;

  private readBatch(): void {
    if (this.reading || this.waiting.length === 0) return;
    this.reading = true;
    const batch = this.waiting.splice(0, READ_BATCH);
    repo
      .findSessions(this.db, this.dialect, [...new Set(batch.map((w) => w.id))])
      .then(
        (rows) => {
          const byId = new Map(rows.map((row) => [row.id, row]));
          for (const w of batch) w.resolve(byId.get(w.id));
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      )
      .finally(() => {
        this.reading = false;
        this.readBatch();
      });
  }

  async heartbeat(serviceId: string, sessionId: string, now: number): Promise<Beat> {
    const row = await this.read(serviceId, sessionId);
    if (!row) return { alive: false, reason: 'TIMED_OUT' };
    if (row.endedReason !== null) return { alive: false, reason: row.endedReason as EndReason };
    const lastSeenAt = Math.max(row.lastSeenAt, this.pending.get(sessionId) ?? 0);
    if (deadlineOf(lastSeenAt, row.heartbeatSeconds) < now) return { alive: false, reason: 'TIMED_OUT' };
    if ((this.pending.get(sessionId) ?? 0) < now) this.pending.set(sessionId, now);
    const session = sessionOf(row);
    if (this.movedExpiries.has(sessionId)) session.keyExpiresAt = this.movedExpiries.get(sessionId)!;
    return { alive: true, session: { ...session, lastSeenAt: now }, expiresAt: deadlineOf(now, row.heartbeatSeconds) };
  }

  async keyExpiryMoved(session: LiveSession, keyExpiresAt: number | null): Promise<void> {
    if (this.movedExpiries.size >= MOVED_EXPIRIES_LIMIT) this.movedExpiries.delete(this.movedExpiries.keys().next().value!);
    this.movedExpiries.set(session.sessionId, keyExpiresAt);
  }

  async end(serviceId: string, selector: SessionSelector, reason: EndReason, now: number): Promise<number> {
    return repo.endSessions(this.db, serviceId, selector, reason, now);
  }

  async close(serviceId: string, sessionId: string): Promise<boolean> {
    this.pending.delete(sessionId);
    return repo.deleteSession(this.db, serviceId, sessionId);
  }

  async list(serviceId: string, filter: SessionFilter, page: { offset: number; limit: number }, now: number) {
    const { items, total } = await repo.pageLive(this.db, serviceId, filter, page, now);
    return {
      items: items.map((row) => ({ ...sessionOf(row), lastSeenAt: Math.max(row.lastSeenAt, this.pending.get(row.id) ?? 0) })),
      total,
    };
  }

  count(serviceId: string, now: number): Promise<number> {
    return repo.countLive(this.db, serviceId, now);
  }

  /** Writes the heartbeats held here; flushes run one after another, and a failed one keeps its times for the next. */
  flush(now: number): Promise<void> {
    const next = this.flushing.then(() => this.write(now));
    this.flushing = next.catch(() => {});
    return next;
  }

  private async write(now: number): Promise<void> {
    const batch = [...this.pending];
    this.pending = new Map();
    try {
      for (let i = 0; i < batch.length; i += 500) await repo.touchSessions(this.db, this.dialect, batch.slice(i, i + 500));
    } catch (err) {
      for (const [id, at] of batch) if ((this.pending.get(id) ?? 0) < at) this.pending.set(id, at);
      throw err;
    }
    if (now - this.lastPruneAt >= 60_000) {
      this.lastPruneAt = now;
      await repo.pruneSessions(this.db, now, ENDED_KEPT_MS);
    }
  }
}
