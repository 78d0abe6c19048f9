import { randomBytes } from 'node:crypto';

/** Why a live session ended (contract §18): what the next heartbeat answers with its 410. */
export const END_REASONS = [
  'KEY_BANNED',
  'KEY_PAUSED',
  'KEY_EXPIRED',
  'KEY_DELETED',
  'HWID_RESET',
  'HWID_BLACKLISTED',
  'SCRIPT_DISABLED',
  'KILLED',
  'TIMED_OUT',
] as const;
export type EndReason = (typeof END_REASONS)[number];

/** A session id: 144 random bits, URL-safe, so it can travel in a GET path (contract §18 asks for at least 128). */
export const newSessionId = () => randomBytes(18).toString('base64url');

/** How long an ended session's reason is kept for its next heartbeat; after it, an unknown id answers TIMED_OUT. */
export const ENDED_KEPT_MS = 10 * 60_000;

/** A session is live while its last heartbeat is at most two periods old (contract §18). */
export const deadlineOf = (lastSeenAt: number, heartbeatSeconds: number) => lastSeenAt + 2 * heartbeatSeconds * 1000;

export interface OpenRequest {
  serviceId: string;
  /** null: a keyless HWID, or an ffa script run without a key (no limit applies). */
  key: string | null;
  hwid: string;
  scriptId: string | null;
  /** 0 = no limit. */
  maxSessions: number;
  heartbeatSeconds: number;
  keyExpiresAt: number | null;
  /** The account that created the key (null: none, or no key): a reseller lists only its own keys' sessions. */
  keyCreatedBy?: string | null;
  now: number;
  /** The executor the run reported (contract §29), kept for its peak of sessions at once. */
  executor?: string;
}

export type Opened = { sessionId: string; expiresAt: number } | 'limit';

export interface LiveSession {
  sessionId: string;
  serviceId: string;
  key: string | null;
  hwid: string;
  scriptId: string | null;
  heartbeatSeconds: number;
  startedAt: number;
  lastSeenAt: number;
  keyExpiresAt: number | null;
}

// An ended session names its key and HWID where the store still has them: a ban's words are looked up by them (§26).
export type Beat =
  { alive: true; session: LiveSession; expiresAt: number } | { alive: false; reason: EndReason; key?: string | null; hwid?: string };

/** Which sessions of a service to end: one, a key's, an HWID's, a script's, or all (the service is deleted). */
export type SessionSelector = { sessionId: string } | { key: string } | { hwid: string } | { scriptId: string } | { all: true };

export interface SessionFilter {
  key?: string;
  scriptId?: string;
  /** Only sessions of keys this account created (a reseller's scope, contract §17). */
  createdBy?: string;
}

/**
 * The live sessions of every instance (style habit 15): one owner, two implementations, chosen at start by
 * createLiveSessions (Redis when REDIS_URL is set, the database otherwise), so no caller asks which one runs.
 * Both settle a limit race where the state lives (a Lua script; a row lock in a transaction), so M opens racing for
 * a key with room for N succeed exactly N times on any number of instances, and neither writes the database on a
 * heartbeat's request path.
 */
export interface LiveSessions {
  open(request: OpenRequest): Promise<Opened>;
  /**
   * Records the heartbeat and answers whether the session lives (it never was, timed out, or was ended): without a
   * promise where that needs no I/O (a row kept in memory).
   */
  heartbeat(serviceId: string, sessionId: string, now: number): Beat | Promise<Beat>;
  /** A heartbeat found the key's expiry moved (an extension): later heartbeats compare with the new one. */
  keyExpiryMoved(session: LiveSession, keyExpiresAt: number | null): Promise<void>;
  /**
   * A seller changed the key's expiry (it may now be earlier than its sessions knew): every instance judges the key's
   * sessions against the new one from their next heartbeat.
   */
  keyExpiryChanged(serviceId: string, key: string, keyExpiresAt: number | null): Promise<void>;
  /** Ends the selected live sessions with `reason`; answers how many. */
  end(serviceId: string, selector: SessionSelector, reason: EndReason, now: number): Promise<number>;
  /** The client ended its own session: its place is free at once. */
  close(serviceId: string, sessionId: string, now: number): Promise<boolean>;
  list(
    serviceId: string,
    filter: SessionFilter,
    page: { offset: number; limit: number },
    now: number,
  ): Promise<{ items: LiveSession[]; total: number }>;
  count(serviceId: string, now: number): Promise<number>;
  /** The service's live sessions opened by runs that reported this executor (contract §29). */
  countOfExecutor(serviceId: string, executor: string, now: number): Promise<number>;
  /** Writes what the instance holds in memory (the database implementation's heartbeats) and prunes ended rows. */
  flush(now: number): Promise<void>;
}
