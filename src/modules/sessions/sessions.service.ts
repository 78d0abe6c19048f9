import type { AppContext } from '../../context.ts';
import type { Redis } from 'ioredis';
import type { Db, Dialect } from '../../db/database.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
import { AppError, notFound } from '../../errors.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { iso } from '../../lib/time.ts';
import type { Actor } from '../audit/actor.ts';
import { findActiveKey, keyScopeOf } from '../keys/keys.service.ts';
import { findBanInForce } from '../blacklist/blacklist.service.ts';
import { serviceForClient, wasServiceDeleted } from '../services/services.service.ts';
import { bindForSession, validateKey, type Verdict } from '../validation/validation.service.ts';
import { noteSessionLimitRefusal } from '../chat/chat-notices.service.ts';
import { executorRefused } from '../loader/loader.service.ts';
import { UNKNOWN_EXECUTOR } from '../../lib/executor.ts';
import { LiveSessionsInDatabase } from './live-sessions.db.ts';
import { endSessions } from './session-ending.service.ts';
import { LiveSessionsInRedis } from './live-sessions.redis.ts';
import type { Beat, EndReason, LiveSession, LiveSessions, SessionFilter } from './live-sessions.ts';

export type { EndReason, LiveSessions, SessionSelector } from './live-sessions.ts';
export { endSessions } from './session-ending.service.ts';

/**
 * The one choice of where live sessions are kept, made when the instance starts (style habit 15). A server on SQLite
 * hears every end in-process (the bus), so its kept rows answer at once; elsewhere each batch of heartbeats checks the
 * end counters first (LiveSessionsInDatabase says why).
 */
export function createLiveSessions(deps: {
  db: Db;
  dialect: Dialect;
  redis: Redis | null;
  bus: InvalidationBus;
  server: boolean;
}): LiveSessions {
  if (deps.redis) return new LiveSessionsInRedis(deps.redis);
  return new LiveSessionsInDatabase(deps.db, deps.dialect, deps.server && deps.dialect === 'sqlite' ? deps.bus : null);
}

/** The sentence a buyer is shown when a session ends, by reason (the Lua client shows the same words). */
export const END_SENTENCES: Record<EndReason, string> = {
  KEY_BANNED: 'Your key was banned',
  KEY_PAUSED: 'Your key was paused',
  KEY_EXPIRED: 'Your key has expired',
  KEY_DELETED: 'Your key was deleted',
  HWID_RESET: "Your key's HWID was reset",
  HWID_BLACKLISTED: 'This device is banned',
  SCRIPT_DISABLED: 'This script was disabled',
  KILLED: 'Your session was ended by the seller',
  TIMED_OUT: 'Your session timed out',
};

const ended = (reason: EndReason) => new AppError('SESSION_ENDED', END_SENTENCES[reason], { reason });

interface OpenInput {
  key?: string;
  hwid?: string;
  scriptId?: string;
  /** Open only when the script has heartbeat or the key has maxSessions (what the loader asks). */
  ifNeeded?: boolean;
  /** The executor the run reported, as counted (contract §29). */
  executor?: string;
}

/**
 * Opens a live session (contract §18): the same validation as /keys/validate decides (a refusal opens nothing), then
 * the live state settles the key's limit.
 */
export async function openSession(ctx: AppContext, serviceRef: string, input: OpenInput) {
  const service = await serviceForClient(ctx, serviceRef);
  let scriptId: string | null = null;
  let scriptHeartbeat = false;
  let scriptFfa = false;
  if (input.scriptId !== undefined) {
    const script = await ctx.delivery.script(input.scriptId);
    if (!script || script.serviceId !== service.id) throw notFound('Script');
    if (!script.enabled) throw new AppError('KEY_REFUSED', 'This script is disabled', { reason: 'SCRIPT_DISABLED' });
    // Contract §29, before any key is looked at. The loader's open (ifNeeded) is counted by the fetch that follows it.
    const refusal = executorRefused(ctx, script, input.executor, !input.ifNeeded);
    if (refusal) throw new AppError('KEY_REFUSED', refusal, { reason: 'EXECUTOR_UNSUPPORTED' });
    scriptId = script.id;
    scriptHeartbeat = script.heartbeat;
    scriptFfa = script.ffa;
  }
  // A free-for-all script runs without a key (contract §16.3, §18): its run opens a session all the same, without one.
  const verdict =
    input.key || !scriptFfa
      ? await validateKey(ctx, service.id, { key: input.key, hwid: input.hwid, executor: input.executor }, !input.ifNeeded, false)
      : null;
  if (verdict && !verdict.valid && !scriptFfa) throw refused(verdict);
  const now = ctx.clock();
  // A keyless HWID opens a session without a key; the limit belongs to keys.
  const keyRow = verdict?.code === 'KEY_VALID' && input.key ? await findActiveKey(ctx.db, service.id, input.key) : undefined;
  const maxSessions = keyRow?.maxSessions ?? 0;
  // A new device's HWID is bound only once its run may go on (contract §26).
  const bind = async () => {
    const locked = verdict?.unbound && keyRow ? await bindForSession(ctx, service.id, keyRow.key, input.hwid!) : null;
    if (locked) throw refused(locked);
  };
  if (input.ifNeeded && !scriptHeartbeat && maxSessions === 0) {
    await bind();
    return { needed: false as const };
  }
  const heartbeatSeconds = service.sessionHeartbeatSeconds;
  const opened = await ctx.liveSessions.open({
    serviceId: service.id,
    key: keyRow ? keyRow.key : null,
    hwid: input.hwid!,
    scriptId,
    maxSessions,
    heartbeatSeconds,
    keyExpiresAt: keyRow?.expiresAt ?? null,
    keyCreatedBy: keyRow?.createdBy ?? null,
    now,
    executor: input.executor,
  });
  if (opened === 'limit') {
    // Contract §24.4: a key refused again and again this hour is told to the staff channel.
    if (keyRow) await noteSessionLimitRefusal(ctx, service, keyRow.key);
    throw new AppError('SESSION_LIMIT', sessionLimitSentence(maxSessions, heartbeatSeconds), { maxSessions });
  }
  try {
    await bind();
  } catch (error) {
    await ctx.liveSessions.close(service.id, opened.sessionId, ctx.clock());
    throw error;
  }
  // Live sessions only rise when one opens, so a count taken here finds each hour's peak.
  if (ctx.analytics.enabled) {
    const executor = input.executor ?? UNKNOWN_EXECUTOR;
    const [live, ofExecutor] = await Promise.all([
      ctx.liveSessions.count(service.id, now),
      ctx.liveSessions.countOfExecutor(service.id, executor, now),
    ]);
    ctx.analytics.notePeakSessions(service.id, live, { name: executor, live: ofExecutor });
  }
  return { sessionId: opened.sessionId, heartbeatSeconds, expiresAt: iso(opened.expiresAt)! } as const;
}

const refused = (verdict: Verdict) =>
  new AppError('KEY_REFUSED', `The key was refused (${verdict.code}): ${verdict.message}`, { reason: verdict.code });

/** The buyer's words for SESSION_LIMIT (contract §26): a session is given up after two missed heartbeats. */
export const sessionLimitSentence = (maxSessions: number, heartbeatSeconds: number) =>
  `This key is already running on ${maxSessions} device${maxSessions === 1 ? '' : 's'}, its limit. ` +
  `Close the script there, or wait ${2 * heartbeatSeconds} seconds after it stopped.`;

/**
 * A heartbeat: alive, or 410 with why it ended. The key's expiry is the one refusal no change announces, so a heartbeat
 * past the expiry the session knew reads the key once (an extension moves it; otherwise the session ends). Answered
 * without a promise when the live state needs no I/O (as a key validated in a loop is), else with one.
 */
export function heartbeat(ctx: AppContext, serviceRef: string, sessionId: string): Alive | Promise<Alive> {
  const service = ctx.services.peek(serviceRef);
  if (!service) {
    return serviceForClient(ctx, serviceRef).then(
      (found) => beatOf(ctx, found.id, sessionId, ctx.clock()),
      (err: unknown) => afterUnknownService(ctx, serviceRef, err),
    );
  }
  return beatOf(ctx, service.id, sessionId, ctx.clock());
}

/** A deleted service's sessions ended with it (contract §27): 410 KEY_DELETED, where an unknown service is 404. */
async function afterUnknownService(ctx: AppContext, serviceRef: string, err: unknown): Promise<never> {
  if (err instanceof AppError && err.code === 'NOT_FOUND' && (await wasServiceDeleted(ctx.db, serviceRef))) throw ended('KEY_DELETED');
  throw err;
}

function beatOf(ctx: AppContext, serviceId: string, sessionId: string, now: number): Alive | Promise<Alive> {
  const beat = ctx.liveSessions.heartbeat(serviceId, sessionId, now);
  if (beat instanceof Promise) return beat.then((read) => judge(ctx, read, now, serviceId));
  return judge(ctx, beat, now, serviceId);
}

function judge(ctx: AppContext, beat: Beat, now: number, serviceId: string): Alive | Promise<Alive> {
  // An instance that still holds the service's row (its copy lives a few seconds) finds a deleted service's sessions gone.
  if (!beat.alive && beat.reason === 'TIMED_OUT')
    return wasServiceDeleted(ctx.db, serviceId).then((deleted) => Promise.reject(ended(deleted ? 'KEY_DELETED' : 'TIMED_OUT')));
  if (!beat.alive)
    return beat.reason === 'KEY_BANNED' || beat.reason === 'HWID_BLACKLISTED'
      ? endedByBan(ctx, serviceId, beat, now)
      : Promise.reject(ended(beat.reason));
  if (expiryPassed(beat.session, now)) return afterExpiry(ctx, beat, now);
  return aliveOf(beat);
}

/** A session ended by a ban tells the buyer the ban's reason and end (contract §26), read as they stand now. */
async function endedByBan(ctx: AppContext, serviceId: string, beat: Beat & { alive: false }, now: number): Promise<never> {
  let ban: { reason: string | null; endsAt: number | null } | undefined;
  if (beat.reason === 'KEY_BANNED' && beat.key) {
    const row = await findActiveKey(ctx.db, serviceId, beat.key);
    ban = row && { reason: row.banReason, endsAt: row.banExpiresAt };
  } else if (beat.reason === 'HWID_BLACKLISTED' && beat.hwid) {
    const entry = await findBanInForce(ctx.db, serviceId, beat.hwid, now);
    ban = entry && { reason: entry.reason, endsAt: entry.expiresAt };
  }
  const banReason = ban?.reason ?? null;
  const banEndsAt = iso(ban?.endsAt ?? null);
  const words = `${END_SENTENCES[beat.reason]}${banReason ? `: ${banReason}` : ''}${banEndsAt ? `${banReason ? ',' : ''} until ${banEndsAt}` : ''}`;
  throw new AppError('SESSION_ENDED', words, { reason: beat.reason, banReason, banEndsAt });
}

type Alive = { alive: true; heartbeatSeconds: number; expiresAt: string };
const aliveOf = (beat: Beat & { alive: true }): Alive => ({
  alive: true,
  heartbeatSeconds: beat.session.heartbeatSeconds,
  expiresAt: iso(beat.expiresAt)!,
});
const expiryPassed = (session: LiveSession, now: number) =>
  session.key !== null && session.keyExpiresAt !== null && session.keyExpiresAt <= now;

async function afterExpiry(ctx: AppContext, beat: Beat & { alive: true }, now: number): Promise<Alive> {
  const reason = await expiryVerdict(ctx, beat.session, now);
  if (reason) {
    await endSessions(ctx, beat.session.serviceId, { sessionId: beat.session.sessionId }, reason);
    throw ended(reason);
  }
  return aliveOf(beat);
}

async function expiryVerdict(ctx: AppContext, session: LiveSession, now: number): Promise<EndReason | null> {
  const row = await findActiveKey(ctx.db, session.serviceId, session.key!);
  if (!row) return 'KEY_DELETED';
  if (row.expiresAt !== null && row.expiresAt <= now) return 'KEY_EXPIRED';
  await ctx.liveSessions.keyExpiryMoved(session, row.expiresAt);
  return null;
}

export async function closeSession(ctx: AppContext, serviceRef: string, sessionId: string) {
  const service = await serviceForClient(ctx, serviceRef);
  return { ended: await ctx.liveSessions.close(service.id, sessionId, ctx.clock()) };
}

/** POST /keys/api/sessions/kill: a seller ends a key's sessions, or one session. */
export async function killSessions(ctx: AppContext, serviceId: string, selector: { key: string } | { sessionId: string }) {
  return { ended: await ctx.liveSessions.end(serviceId, selector, 'KILLED', ctx.clock()) };
}

const sessionView = (s: LiveSession) => ({
  sessionId: s.sessionId,
  key: s.key,
  hwid: s.hwid,
  scriptId: s.scriptId,
  startedAt: iso(s.startedAt)!,
  lastSeenAt: iso(s.lastSeenAt)!,
});

/** A reseller lists only the sessions of keys it created (contract §17, §27), whatever the filters. */
export async function listSessions(ctx: AppContext, serviceId: string, filter: SessionFilter, page: PageRequest, actor: Actor) {
  const scope = keyScopeOf(actor);
  const scoped = scope === null ? filter : { ...filter, createdBy: scope };
  const { items, total } = await ctx.liveSessions.list(serviceId, scoped, page, ctx.clock());
  return pageOf(items.map(sessionView), total, page);
}

/** For the service status (contract §18: liveSessions). */
export const countLiveSessions = (ctx: AppContext, serviceId: string) => ctx.liveSessions.count(serviceId, ctx.clock());

/** How many sessions of one key live now (a key's Discord answers, contract §24). */
export const countLiveSessionsOfKey = async (ctx: AppContext, serviceId: string, key: string) =>
  (await ctx.liveSessions.list(serviceId, { key }, { offset: 0, limit: 1 }, ctx.clock())).total;
