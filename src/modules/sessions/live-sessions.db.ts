import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Db, Dialect } from '../../db/database.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
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

const sessionOf = (row: repo.SessionRow, lastSeenAt = row.lastSeenAt): LiveSession => ({
  sessionId: row.id,
  serviceId: row.serviceId,
  key: row.key,
  hwid: row.hwid,
  scriptId: row.scriptId,
  heartbeatSeconds: row.heartbeatSeconds,
  startedAt: row.startedAt,
  lastSeenAt,
  keyExpiresAt: row.keyExpiresAt,
});

// Heartbeats written by one statement of the flush.
const FLUSH_CHUNK = 500;
// At most this many heartbeats share one read.
const READ_BATCH = 500;
// Batches whose reads may be on the wire at once; they are judged in the order they were made.
const READS_IN_FLIGHT = 2;
// At most this many extended key expiries are remembered per instance; a forgotten one costs one more key read.
const MOVED_EXPIRIES_LIMIT = 50_000;
// At most this many live sessions' rows are kept in memory (about 300 bytes each); past it they are all let go and
// read again at their next heartbeat.
const KEPT_ROWS_LIMIT = 200_000;
// Told when sessions of a service end or close (the key is the service id, '*' all): kept rows of it are dropped.
const ENDED_TOPIC = 'live-sessions-ended';

/**
 * Live sessions in the database (no REDIS_URL). A heartbeat is answered from the session's row kept in memory (see
 * `kept`) and writes nothing: the time is kept in memory and the session-flush job writes the batch every
 * SESSION_FLUSH_MS, well inside the shortest heartbeat period (10 s), so a live session's row never looks two periods
 * old. An open takes the key's lock (sessions.repository.ts lockKeyForOpen), counts and inserts in one transaction.
 */
export class LiveSessionsInDatabase implements LiveSessions {
  private pending = new Map<string, number>();
  /** Extensions a heartbeat found (keyExpiryMoved), by session: `from` is the row's expiry they apply to. */
  private readonly movedExpiries = new Map<string, { from: number | null; to: number | null }>();
  private flushing: Promise<void> = Promise.resolve();
  private lastPruneAt = 0;
  /**
   * Live sessions' rows, so a heartbeat reads none (the read was a fifth of a heartbeat's CPU on SQLite). With
   * `endings` (SQLite's server): one process holds the database, every end passes through a store on its handle, and
   * the in-process bus tells every store on the handle before end() returns, so a kept row answers at once and the
   * next heartbeat still answers 410. Without (PostgreSQL: another instance's NOTIFY arrives after its end has
   * answered), each batch of heartbeats first reads its services' end counters (`epochs`): where one moved since, the
   * sessions stamped with a later value are let go (all the service's rows when this store knew no value), so an end
   * committed before a heartbeat's batch read reaches it.
   */
  private readonly kept = new Map<string, Map<string, repo.SessionRow>>();
  private keptCount = 0;
  /** PostgreSQL: each service's end counter as this store last read it (and when); its kept rows were read after that. */
  private readonly epochs = new Map<string, { seq: string; at: number }>();
  /** PostgreSQL: services whose end counter this store made sure exists (at an open). */
  private readonly epochMade = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly endings: InvalidationBus | null = null,
  ) {
    endings?.subscribe(ENDED_TOPIC, (serviceId) => this.forget(serviceId));
  }

  private keptRow(serviceId: string, sessionId: string): repo.SessionRow | undefined {
    return this.kept.get(serviceId)?.get(sessionId);
  }

  private keep(row: repo.SessionRow): void {
    if (row.endedReason !== null) return;
    if (this.keptCount >= KEPT_ROWS_LIMIT) this.forget('*');
    let rows = this.kept.get(row.serviceId);
    if (!rows) this.kept.set(row.serviceId, (rows = new Map()));
    if (!rows.has(row.id)) this.keptCount++;
    rows.set(row.id, row);
  }

  /** By service, so that a bulk ban's thousands of ends each cost one lookup. */
  private forget(serviceId: string): void {
    if (serviceId === '*') {
      this.kept.clear();
      this.keptCount = 0;
      return;
    }
    this.keptCount -= this.kept.get(serviceId)?.size ?? 0;
    this.kept.delete(serviceId);
  }

  private unkeep(serviceId: string, sessionId: string): void {
    if (this.kept.get(serviceId)?.delete(sessionId)) this.keptCount--;
  }

  /** Every store on this handle (this one first) drops the service's kept rows (or the one session's) before the caller answers. */
  private async ended(serviceId: string, selector: SessionSelector): Promise<void> {
    if ('sessionId' in selector) this.unkeep(serviceId, selector.sessionId);
    else this.forget(serviceId);
    if (this.endings) await this.endings.publish(ENDED_TOPIC, serviceId);
  }

  async open(request: OpenRequest): Promise<Opened> {
    const { serviceId, key, now } = request;
    if (!this.endings && !this.epochMade.has(serviceId)) {
      await repo.ensureEpoch(this.db, serviceId);
      this.epochMade.add(serviceId);
    }
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
      endedSeq: null,
      executor: request.executor ?? null,
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
    // Without `endings`, an end may commit before this line without this store hearing of it: the first heartbeat reads the row.
    if (this.endings) this.keep(row);
    return { sessionId: row.id, expiresAt: deadlineOf(now, row.heartbeatSeconds) };
  }

  /**
   * Records the heartbeat and judges the session: on SQLite's server from the kept row at once, else from its row read
   * now; otherwise in a batch with the other heartbeats waiting (at most READS_IN_FLIGHT batches at a time, so under
   * load each round trip answers many heartbeats), which checks the end counters and reads the rows it does not keep.
   * The batch judges each heartbeat itself: a heartbeat waits on one promise, not a chain of them.
   */
  heartbeat(serviceId: string, sessionId: string, now: number): Beat | Promise<Beat> {
    if (this.endings) {
      const kept = this.keptRow(serviceId, sessionId);
      if (kept && this.stillLive(kept, now)) return this.beat(kept, now, true);
      const rows = repo.findSessionNow(this.db, serviceId, sessionId);
      if (rows) {
        if (rows[0]) this.keep(rows[0]);
        return this.judgeRead(rows[0], now, true);
      }
    }
    return new Promise<Beat>((resolve, reject) => {
      this.waiting.push({ id: sessionId, serviceId, now, resolve, reject });
      this.scheduleRead();
    });
  }

  private judgeRead(row: repo.SessionRow | undefined, now: number, kept: boolean): Beat {
    return row ? this.beat(row, now, kept) : { alive: false, reason: 'TIMED_OUT' };
  }

  /** A kept row knows only this store's heartbeats: past its deadline it is let go, as another instance may have flushed later ones. */
  private stillLive(kept: repo.SessionRow, now: number): boolean {
    if (deadlineOf(kept.lastSeenAt, kept.heartbeatSeconds) >= now) return true;
    this.unkeep(kept.serviceId, kept.id);
    return false;
  }

  private readonly waiting: Array<{
    id: string;
    serviceId: string;
    now: number;
    resolve: (beat: Beat) => void;
    reject: (err: unknown) => void;
  }> = [];
  /** Batches on the wire (at most READS_IN_FLIGHT). */
  private reads = 0;
  private readScheduled = false;
  /** The last batch made: settles once it is judged (never rejects). */
  private lastBatch: Promise<void> = Promise.resolve();

  /**
   * The next read goes after this turn of the event loop has taken in every request that arrived (setImmediate runs
   * once I/O callbacks are done): sent at the first heartbeat, or as soon as the last read answered, it carried only
   * the heartbeats read before it in that turn. Each read costs the server about as much as fifteen heartbeats' own
   * work on PostgreSQL (a round trip), so fuller batches are most of a heartbeat's cost there. A second batch's read
   * goes while the first's is on the wire: with one, the server sat idle through each round trip (docs/benchmarks.md,
   * fifteenth session).
   */
  private scheduleRead(): void {
    if (this.reads >= READS_IN_FLIGHT || this.readScheduled || this.waiting.length === 0) return;
    this.readScheduled = true;
    setImmediate(() => {
      this.readScheduled = false;
      this.readBatch();
    });
  }

  private readBatch(): void {
    if (this.reads >= READS_IN_FLIGHT || this.waiting.length === 0) return;
    this.reads++;
    const batch = this.waiting.splice(0, READ_BATCH);
    // What did not fit may go as the other batch at once.
    this.scheduleRead();
    this.lastBatch = this.judgeBatch(batch, this.lastBatch)
      .catch((err: unknown) => {
        for (const w of batch) w.reject(err);
      })
      .finally(() => {
        this.reads--;
        this.scheduleRead();
      });
  }

  /** Judges the batch once `before` (the batch made before it) is judged: end counters and kept rows change in order. */
  private async judgeBatch(batch: typeof this.waiting, before: Promise<void>): Promise<void> {
    let unread = batch;
    if (this.endings) await before;
    else unread = await this.answerFromKept(batch, before);
    if (unread.length === 0) return;
    const rows = await repo.findSessions(this.db, this.dialect, [...new Set(unread.map((w) => w.id))]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const w of unread) {
      const found = byId.get(w.id);
      const row = found?.serviceId === w.serviceId ? found : undefined;
      // Read after its service's counter (answerFromKept): an end committed since moves the counter again.
      const keep = row !== undefined && !this.endings && this.epochs.has(row.serviceId);
      if (keep) this.keep(row);
      w.resolve(this.judgeRead(row, w.now, keep));
    }
  }

  /** Reads the batch's end counters, drops the kept rows of services whose counter moved, answers the rest from the kept rows; returns the heartbeats left. */
  private async answerFromKept(batch: typeof this.waiting, before: Promise<void>): Promise<typeof this.waiting> {
    const services = [...new Set(batch.map((w) => w.serviceId))];
    const now = batch[0]!.now;
    // Read at once, applied after the batch before: whatever that batch keeps, it read after its own counters, and
    // the ends this read shows past the counters it leaves are read (endedSince) after both.
    const reading = repo.readEpochs(this.db, this.dialect, services);
    reading.catch(() => {});
    await before;
    const epochs = await reading;
    for (const serviceId of services) {
      const epoch = epochs.get(serviceId);
      const known = this.epochs.get(serviceId);
      if (epoch !== undefined && epoch === known?.seq) {
        known.at = now;
        continue;
      }
      // Ended sessions, and their stamps, are pruned ENDED_KEPT_MS after their end: past half of that, read them all.
      if (epoch === undefined || known === undefined || now - known.at > ENDED_KEPT_MS / 2) this.forget(serviceId);
      // Read after the counter, so every session stamped up to it shows (and maybe some stamped since: let go too).
      else for (const id of await repo.endedSince(this.db, serviceId, known.seq)) this.unkeep(serviceId, id);
      // Only once its ends are applied: a failed read leaves the old value, and the next batch tries again.
      if (epoch === undefined) this.epochs.delete(serviceId);
      else this.epochs.set(serviceId, { seq: epoch, at: now });
    }
    const unread: typeof this.waiting = [];
    for (const w of batch) {
      const kept = this.keptRow(w.serviceId, w.id);
      if (kept && this.stillLive(kept, w.now)) w.resolve(this.beat(kept, w.now, true));
      else unread.push(w);
    }
    return unread;
  }

  /** Judges the session's row as read (or kept: then its time moves too) and records the heartbeat in memory. */
  private beat(row: repo.SessionRow, now: number, kept: boolean): Beat {
    const sessionId = row.id;
    if (row.endedReason !== null) return { alive: false, reason: row.endedReason as EndReason, key: row.key, hwid: row.hwid };
    const pendingAt = this.pending.get(sessionId) ?? 0;
    if (deadlineOf(Math.max(row.lastSeenAt, pendingAt), row.heartbeatSeconds) < now) return { alive: false, reason: 'TIMED_OUT' };
    if (pendingAt < now) this.pending.set(sessionId, now);
    if (kept && row.lastSeenAt < now) row.lastSeenAt = now;
    const session = sessionOf(row, now);
    const moved = this.movedExpiries.get(sessionId);
    // A seller's change of the expiry since (keyExpiryChanged) wrote the row: it outranks what a heartbeat found before.
    if (moved !== undefined && moved.from === row.keyExpiresAt) session.keyExpiresAt = moved.to;
    return { alive: true, session, expiresAt: deadlineOf(now, row.heartbeatSeconds) };
  }

  async keyExpiryMoved(session: LiveSession, keyExpiresAt: number | null): Promise<void> {
    if (this.movedExpiries.size >= MOVED_EXPIRIES_LIMIT) this.movedExpiries.delete(this.movedExpiries.keys().next().value!);
    const row = this.keptRow(session.serviceId, session.sessionId);
    const from = this.movedExpiries.get(session.sessionId)?.from ?? row?.keyExpiresAt ?? session.keyExpiresAt;
    this.movedExpiries.set(session.sessionId, { from, to: keyExpiresAt });
  }

  /** Written to the key's session rows; every store lets its kept rows of them go, as after an end. */
  async keyExpiryChanged(serviceId: string, key: string, keyExpiresAt: number | null): Promise<void> {
    const changed = await repo.changeKeyExpiry(this.db, this.dialect, serviceId, key, keyExpiresAt);
    if (changed > 0) await this.ended(serviceId, { key });
  }

  async end(serviceId: string, selector: SessionSelector, reason: EndReason, now: number): Promise<number> {
    const ended = await repo.endSessions(this.db, this.dialect, serviceId, selector, reason, now);
    await this.ended(serviceId, selector);
    return ended;
  }

  /** The client's own end: its next heartbeat answers as an unknown session's would (TIMED_OUT); pruned with the ended. */
  async close(serviceId: string, sessionId: string, now: number): Promise<boolean> {
    this.pending.delete(sessionId);
    return (await this.end(serviceId, { sessionId }, 'TIMED_OUT', now)) > 0;
  }

  async list(serviceId: string, filter: SessionFilter, page: { offset: number; limit: number }, now: number) {
    const { items, total } = await repo.pageLive(this.db, serviceId, filter, page, now);
    return {
      items: items.map((row) => sessionOf(row, Math.max(row.lastSeenAt, this.pending.get(row.id) ?? 0))),
      total,
    };
  }

  count(serviceId: string, now: number): Promise<number> {
    return repo.countLive(this.db, serviceId, now);
  }

  countOfExecutor(serviceId: string, executor: string, now: number): Promise<number> {
    return repo.countLiveOfExecutor(this.db, serviceId, executor, now);
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
      for (let i = 0; i < batch.length; i += FLUSH_CHUNK) {
        // SQLite's statements run on the event loop: requests are answered between chunks, not after all of them
        // (10,000 sessions held it 20 ms every flush, the heartbeat's p99).
        if (i > 0) await yieldToRequests();
        await repo.touchSessions(this.db, this.dialect, batch.slice(i, i + FLUSH_CHUNK));
      }
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
