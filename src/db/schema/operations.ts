import type { ColumnType } from 'kysely';

// Table shapes: The outbox, analytics, the audit log and background jobs.

// ---- Webhook outbox ----

/**
 * `pending`: waiting for `nextAttemptAt`. `sending`: claimed by one instance until `leaseUntil`
 * (an expired lease means that instance died; the message is claimed again). `delivered` and
 * `failed` are final.
 */
export type OutboxStatus = 'pending' | 'sending' | 'delivered' | 'failed';

export interface WebhookOutboxTable {
  id: string;
  serviceId: string;
  /** The webhook address when the message was accepted (a record: the worker sends to the address the service has then). */
  url: string;
  /** JSON of what is posted to the platform. */
  payload: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  claimToken: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
  /** What the row sends (migration 0019): a chat message, a Discord role change, or an event. */
  kind: ColumnType<OutboxKind, OutboxKind | undefined, OutboxKind>;
  /** The event endpoint's id (event) or the Discord user's id (discordRole); null for chat. */
  target: ColumnType<string | null, string | null | undefined, string | null>;
}

/** discordMessage: a post to Discord's REST (an interaction's follow-up, a staff-channel notice); discordTask: deferred
 * interaction work (contract §24.3), run by the delivery job so it survives a restart. */
export type OutboxKind = 'chat' | 'discordRole' | 'event' | 'discordMessage' | 'discordTask';

// ---- Analytics ----

/** One service's counters for one UTC hour (`at` is the hour's start, epoch ms). */
export interface AnalyticsBucketsTable {
  serviceId: string;
  at: number;
  validations: number;
  valid: number;
  refused: number;
  executions: number;
  redemptions: number;
  keySystemKeys: number;
  /** The most live sessions at once in the hour (contract §18); flushes keep the larger, never add. */
  peakSessions: ColumnType<number, number | undefined, number>;
}

export interface AnalyticsCodesTable {
  serviceId: string;
  at: number;
  code: string;
  count: number;
}

export interface AnalyticsScriptsTable {
  serviceId: string;
  at: number;
  scriptId: string;
  executions: number;
}

/** Runs by the executor each reported (contract §29), per service and UTC day (`at`); at most 200 names a day. */
export interface AnalyticsExecutorsTable {
  serviceId: string;
  at: number;
  executor: string;
  executions: number;
  valid: number;
  refused: number;
  /** A maximum, like analytics_buckets.peak_sessions: flushes keep the larger. */
  peakSessions: number;
  /** A maximum too: the latest run seen (epoch ms). */
  lastSeen: number;
}

export interface AnalyticsExecutorCodesTable {
  serviceId: string;
  at: number;
  executor: string;
  code: string;
  count: number;
}

// ---- Audit log ----

export interface AuditLogTable {
  id: string;
  at: number;
  /** The account that owns what changed: its log lists the entry. Null only for a system change with no owner. */
  accountId: string | null;
  /** Set for service actions: the service's log lists the entry. */
  serviceId: string | null;
  action: string;
  actorKind: string;
  actorAccountId: string | null;
  /** The acting account's username when the entry was written (contract §17); null for keys, end users, the system. */
  actorUsername: ColumnType<string | null, string | null | undefined, string | null>;
  ip: string | null;
  target: string | null;
  /** JSON object of what changed; never a secret. */
  details: string;
}

// ---- Background jobs ----

/** Who runs an exclusive background job now (src/jobs/runner.ts). */
export interface JobLeasesTable {
  name: string;
  holder: string;
  leaseUntil: number;
}

// ---- Backups ----

export type DatabaseKind = 'sqlite' | 'postgres';

/** One finished `keyward backup` (migration 0021): when, how big, how many keys, of which database. */
export interface BackupRunsTable {
  id: string;
  finishedAt: number;
  sizeBytes: number;
  keyCount: number;
  databaseKind: DatabaseKind;
}

/** One live session (contract §18): the database implementation of the live state (modules/sessions/). */
export interface LiveSessionsTable {
  id: string;
  serviceId: string;
  key: string | null;
  hwid: string;
  scriptId: string | null;
  heartbeatSeconds: number;
  startedAt: number;
  /** As last flushed: each instance keeps newer heartbeats in memory and writes them in batches. */
  lastSeenAt: number;
  /** The key's expiry when the session opened; a heartbeat after it looks again (an extension moves it). */
  keyExpiresAt: number | null;
  endedReason: string | null;
  endedAt: number | null;
  /** PostgreSQL: the service's end counter (live_session_epochs) as this session's end moved it. */
  endedSeq?: number | string | null;
  /** The executor the run reported (contract §29; migration 0032), for its peak of sessions at once. */
  executor: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Moved by every end or close of a service's live sessions (migration 0028): an instance's kept rows of it are stale. */
/** What a deleted service leaves (migration 0029): its sessions' heartbeats answer KEY_DELETED. */
export interface DeletedServicesTable {
  id: string;
  identifier: string;
  deletedAt: number;
}

export interface LiveSessionEpochsTable {
  serviceId: string;
  /** bigint: PostgreSQL hands it back as text. */
  seq: number | string;
}
