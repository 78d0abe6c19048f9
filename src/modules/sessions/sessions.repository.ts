import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { fixedQuery, runFixedQuery, runFixedQueryNow, type Db, type Dialect } from '../../db/database.ts';
import type { Database, LiveSessionsTable } from '../../db/schema.ts';
import type { SessionFilter, SessionSelector } from './live-sessions.ts';

export type SessionRow = Selectable<LiveSessionsTable>;

/** Live: not ended, and heartbeated within two periods (as last flushed; see LiveSessionsInDatabase). */
const live = (now: number) => (eb: ExpressionBuilder<Database, 'liveSessions'>) =>
  eb.and([eb('endedReason', 'is', null), eb(sql<number>`last_seen_at + heartbeat_seconds * 2000`, '>=', now)]);

export async function insertSession(db: Db, row: SessionRow) {
  await db.insertInto('liveSessions').values(row).execute();
}

/**
 * Holds the key's place in line until the transaction ends, so two instances counting its live sessions at once
 * cannot both see room for one more. PostgreSQL: a transaction-scoped advisory lock on the key (it needs no row, so a
 * keyless or deleted key locks the same way). SQLite runs one writing transaction at a time, which serializes the
 * same section already.
 */
export async function lockKeyForOpen(trx: Db, dialect: Dialect, serviceId: string, key: string) {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`live_sessions:${serviceId}:${key}`}, 0))`.execute(trx);
}

export async function countLiveOfKey(db: Db, serviceId: string, key: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('liveSessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .where('key', '=', key)
    .where(live(now))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Live sessions of a service whose run reported this executor (contract §29): read when one opens, not per heartbeat. */
export async function countLiveOfExecutor(db: Db, serviceId: string, executor: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('liveSessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .where('executor', '=', executor)
    .where(live(now))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// Every heartbeat reads its session: a fixed query (prepared once, no query building), run at once on SQLite.
const FIND_SESSION = fixedQuery(
  'live_session',
  `select id, service_id as "serviceId", key, hwid, script_id as "scriptId", heartbeat_seconds as "heartbeatSeconds",
     started_at as "startedAt", last_seen_at as "lastSeenAt", key_expires_at as "keyExpiresAt",
     ended_reason as "endedReason", ended_at as "endedAt"
   from live_sessions where id = :id and service_id = :serviceId`,
);

/** The session at once (SQLite, while its connection is free), else undefined: then use findSessions. */
export function findSessionNow(db: Db, serviceId: string, sessionId: string): SessionRow[] | undefined {
  return runFixedQueryNow<SessionRow>(db, FIND_SESSION, { id: sessionId, serviceId });
}

const FIND_SESSIONS = fixedQuery(
  'live_sessions_by_id',
  `select id, service_id as "serviceId", key, hwid, script_id as "scriptId", heartbeat_seconds as "heartbeatSeconds",
     started_at as "startedAt", last_seen_at as "lastSeenAt", key_expires_at as "keyExpiresAt",
     ended_reason as "endedReason", ended_at as "endedAt"
   from live_sessions where id = any(:ids)`,
);

/** Several sessions in one statement (PostgreSQL: heartbeats arriving together share one round trip). */
export async function findSessions(db: Db, dialect: Dialect, ids: string[]): Promise<SessionRow[]> {
  if (dialect === 'postgres') return runFixedQuery<SessionRow>(db, FIND_SESSIONS, { ids });
  return db.selectFrom('liveSessions').selectAll().where('id', 'in', ids).execute();
}

// The ids and times travel as two comma-separated texts (a session id is base64url: newSessionId) to a prepared
// statement: array parameters went through Kysely and were escaped by pg element by element, 500 to a statement.
const TOUCH_SESSIONS = fixedQuery(
  'live_sessions_touch',
  `update live_sessions as s set last_seen_at = t.at
   from unnest(string_to_array(:ids, ','), string_to_array(:ats, ',')::bigint[]) as t(id, at)
   where s.id = t.id and s.last_seen_at < t.at`,
);

/** Last-seen times only move forward, so instances flushing the same session agree. */
export async function touchSessions(db: Db, dialect: Dialect, touches: [id: string, at: number][]) {
  if (touches.length === 0) return;
  if (dialect === 'postgres') {
    let ids = '';
    let ats = '';
    for (const [id, at] of touches) {
      ids += ids === '' ? id : `,${id}`;
      ats += ats === '' ? String(at) : `,${at}`;
    }
    await runFixedQuery(db, TOUCH_SESSIONS, { ids, ats });
    return;
  }
  await sql`update live_sessions set last_seen_at = t.at
    from (select value ->> 0 as id, value ->> 1 as at from json_each(${JSON.stringify(touches)})) as t
    where live_sessions.id = t.id and live_sessions.last_seen_at < t.at`.execute(db);
}

/** Creates the service's end counter if it has none: PostgreSQL instances keep rows only of services that have one. */
export async function ensureEpoch(db: Db, serviceId: string) {
  await db
    .insertInto('liveSessionEpochs')
    .values({ serviceId, seq: 0 })
    .onConflict((oc) => oc.column('serviceId').doNothing())
    .execute();
}

const READ_EPOCHS = fixedQuery(
  'live_session_epochs',
  `select service_id as "serviceId", seq::text as seq from live_session_epochs where service_id = any(:ids)`,
);

/** The end counters of these services, as text (a service without one is absent). */
export async function readEpochs(db: Db, dialect: Dialect, serviceIds: string[]): Promise<Map<string, string>> {
  const rows =
    dialect === 'postgres'
      ? await runFixedQuery<{ serviceId: string; seq: string }>(db, READ_EPOCHS, { ids: serviceIds })
      : await db.selectFrom('liveSessionEpochs').select(['serviceId', 'seq']).where('serviceId', 'in', serviceIds).execute();
  return new Map(rows.map((row) => [row.serviceId, String(row.seq)]));
}

/** The sessions of one service an end selects that have not ended yet. */
const selected = (serviceId: string, selector: SessionSelector) => (eb: ExpressionBuilder<Database, 'liveSessions'>) =>
  eb.and([
    eb('serviceId', '=', serviceId),
    eb('endedReason', 'is', null),
    'sessionId' in selector
      ? eb('id', '=', selector.sessionId)
      : 'key' in selector
        ? eb('key', '=', selector.key)
        : 'hwid' in selector
          ? eb('hwid', '=', selector.hwid)
          : 'scriptId' in selector
            ? eb('scriptId', '=', selector.scriptId)
            : eb.lit(true),
  ]);

/**
 * Ends the selected sessions with `reason`. On PostgreSQL one statement also moves the service's end counter and
 * stamps the ended sessions with its new value: the counter's row is locked before any session's, so stamps commit in
 * counter order and an instance that reads the counter finds every session stamped up to it. A selector that matches
 * nothing writes nothing (a ban of a key without sessions moves no counter).
 */
export async function endSessions(
  db: Db,
  dialect: Dialect,
  serviceId: string,
  selector: SessionSelector,
  reason: string,
  now: number,
): Promise<number> {
  if (dialect !== 'postgres') {
    const result = await db
      .updateTable('liveSessions')
      .set({ endedReason: reason, endedAt: now })
      .where(selected(serviceId, selector))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
  const any = await db.selectFrom('liveSessions').select('id').where(selected(serviceId, selector)).limit(1).executeTakeFirst();
  if (!any) return 0;
  const result = await db
    .with('moved', (q) =>
      q
        .insertInto('liveSessionEpochs')
        .values({ serviceId, seq: 1 })
        .onConflict((oc) => oc.column('serviceId').doUpdateSet({ seq: sql`live_session_epochs.seq + 1` }))
        .returning('seq'),
    )
    .updateTable('liveSessions')
    .set((eb) => ({ endedReason: reason, endedAt: now, endedSeq: eb.selectFrom('moved').select('seq') }))
    .where(selected(serviceId, selector))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Writes a key's new expiry to its live sessions. On PostgreSQL it also moves the service's end counter and stamps them
 * with it, as an end does, so every instance lets its kept rows of them go and reads the new expiry.
 */
export async function changeKeyExpiry(db: Db, dialect: Dialect, serviceId: string, key: string, keyExpiresAt: number | null) {
  const any = await db.selectFrom('liveSessions').select('id').where(selected(serviceId, { key })).limit(1).executeTakeFirst();
  if (!any) return 0;
  if (dialect !== 'postgres') {
    const result = await db.updateTable('liveSessions').set({ keyExpiresAt }).where(selected(serviceId, { key })).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
  const result = await db
    .with('moved', (q) =>
      q
        .insertInto('liveSessionEpochs')
        .values({ serviceId, seq: 1 })
        .onConflict((oc) => oc.column('serviceId').doUpdateSet({ seq: sql`live_session_epochs.seq + 1` }))
        .returning('seq'),
    )
    .updateTable('liveSessions')
    .set((eb) => ({ keyExpiresAt, endedSeq: eb.selectFrom('moved').select('seq') }))
    .where(selected(serviceId, { key }))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Ids of the service's sessions whose end moved its counter past `seq` (PostgreSQL). */
export async function endedSince(db: Db, serviceId: string, seq: string): Promise<string[]> {
  const rows = await db.selectFrom('liveSessions').select('id').where('serviceId', '=', serviceId).where('endedSeq', '>', seq).execute();
  return rows.map((row) => row.id);
}

export async function pageLive(db: Db, serviceId: string, filter: SessionFilter, page: { offset: number; limit: number }, now: number) {
  const base = db
    .selectFrom('liveSessions')
    .where('serviceId', '=', serviceId)
    .where(live(now))
    .$if(filter.key !== undefined, (q) => q.where('key', '=', filter.key!))
    .$if(filter.scriptId !== undefined, (q) => q.where('scriptId', '=', filter.scriptId!))
    .$if(filter.createdBy !== undefined, (q) =>
      q.where('key', 'in', (eb) =>
        eb
          .selectFrom('activeKeys')
          .select('activeKeys.key')
          .where('activeKeys.serviceId', '=', serviceId)
          .where('activeKeys.createdBy', '=', filter.createdBy!),
      ),
    );
  const [items, total] = await Promise.all([
    base.selectAll().orderBy('startedAt', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export async function countLive(db: Db, serviceId: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('liveSessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .where(live(now))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Drops sessions ended, or silent, longer than `keptMs` ago: their next heartbeat would answer TIMED_OUT anyway. */
export async function pruneSessions(db: Db, now: number, keptMs: number) {
  await db
    .deleteFrom('liveSessions')
    .where((eb) =>
      eb.or([
        eb('endedAt', '<', now - keptMs),
        eb.and([eb('endedReason', 'is', null), eb(sql<number>`last_seen_at + heartbeat_seconds * 2000`, '<', now - keptMs)]),
      ]),
    )
    .execute();
}
