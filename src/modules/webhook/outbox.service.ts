import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { OutboxKind } from '../../db/schema.ts';
import * as repo from './webhook.repository.ts';
import { LEASE_MS } from './webhook.service.ts';

/**
 * The durable outbox for everything Keyward sends besides chat messages (contract §12.3 Discord role calls,
 * §12.4 events). One table (webhook_outbox, told apart by `kind`), one claim with leases (an instance that dies
 * mid-send leaves its rows to the next pass of any instance), one job (webhook.job.ts) that runs every kind.
 */

/** What one attempt came to; `skipped` means a later change made the call pointless (nothing was sent). */
export type OutboxAttempt =
  | { kind: 'delivered' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'rate-limited'; waitMs: number }
  | { kind: 'transient'; error: string }
  | { kind: 'permanent'; error: string };

export interface OutboxSender {
  kind: Exclude<OutboxKind, 'chat'>;
  /** Sends one claimed row once. Must not throw for an answer it understands. */
  send(ctx: AppContext, row: repo.OutboxRow): Promise<OutboxAttempt>;
  /** The wait after `failed` failed attempts, or null to give up. */
  retryDelayMs(failed: number): number | null;
  /** After a 429, the other waiting rows of the service wait too (they share the platform's limit). */
  rateLimitSharedByService: boolean;
}

/**
 * Retry delays for a day and more (the Standard Webhooks schedule): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, so the
 * eighth and last attempt comes about 27.6 hours after the first.
 */
const DAY_LONG_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];
export const dayLongRetryDelayMs = (failed: number): number | null => DAY_LONG_SCHEDULE_MS[failed - 1] ?? null;

let sequence = 0;
/** Ids sort in acceptance order (time, then this process's counter), as chat messages' do. */
export function outboxId(now: number): string {
  sequence = (sequence + 1) % 0x1_0000_0000;
  return `${now.toString(16).padStart(12, '0')}-${sequence.toString(16).padStart(8, '0')}-${randomUUID().slice(0, 8)}`;
}

export interface NewOutboxRow {
  kind: Exclude<OutboxKind, 'chat'>;
  serviceId: string;
  target: string | null;
  /** A record of where it goes (the sender decides the address when it sends). */
  url: string;
  payload: string;
  now: number;
}

/** Queues one row, in the caller's transaction when `db` is one: it commits or rolls back with the change. */
export async function enqueueOutbox(db: Db, row: NewOutboxRow): Promise<string> {
  const id = outboxId(row.now);
  await repo.insertMessage(db, {
    id,
    kind: row.kind,
    serviceId: row.serviceId,
    target: row.target,
    url: row.url,
    payload: row.payload,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: row.now,
    createdAt: row.now,
  });
  return id;
}

export interface GivenUpRow {
  id: string;
  kind: OutboxKind;
  serviceId: string;
  lastError: string;
}

const CLAIM_BATCH = 20;

/** Which rows one pass may claim: one service's only (a lane of the delivery job), and how many at most. */
export interface PassScope {
  serviceId?: string;
  batch?: number;
}

/** One pass for one kind: claim what is due, send it in order, record each outcome under the claim. */
export async function runOutboxPass(
  ctx: AppContext,
  sender: OutboxSender,
  onGiveUp: (row: GivenUpRow) => void = () => {},
  scope: PassScope = {},
): Promise<{ claimed: number; delivered: number }> {
  const now = ctx.clock();
  const claimToken = randomUUID();
  const rows = await repo.claimDue(
    ctx.db,
    ctx.dialect,
    now,
    claimToken,
    now + LEASE_MS,
    scope.batch ?? CLAIM_BATCH,
    sender.kind,
    scope.serviceId ?? null,
  );
  let delivered = 0;
  const pausedServices = new Map<string, number>();
  for (const row of rows) {
    const pausedUntil = pausedServices.get(row.serviceId);
    if (pausedUntil !== undefined) {
      await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'pending', nextAttemptAt: Math.max(row.nextAttemptAt, pausedUntil) });
      continue;
    }
    if (!(await repo.renewClaim(ctx.db, row.id, claimToken, ctx.clock() + LEASE_MS))) continue;
    const result = await sender.send(ctx, row);
    const at = ctx.clock();
    const attempts = row.attempts + 1;
    switch (result.kind) {
      case 'delivered':
        delivered += 1;
        await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'delivered', attempts, deliveredAt: at, lastError: null });
        break;
      case 'skipped':
        await repo.settleClaim(ctx.db, row.id, claimToken, {
          status: 'delivered',
          deliveredAt: at,
          lastError: `not sent: ${result.reason}`,
        });
        break;
      case 'rate-limited': {
        // Pacing, not a failure: it does not count as an attempt.
        const until = at + result.waitMs;
        await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'pending', nextAttemptAt: until, lastError: 'HTTP 429' });
        if (sender.rateLimitSharedByService) {
          await repo.deferService(ctx.db, row.serviceId, until, sender.kind);
          pausedServices.set(row.serviceId, until);
        }
        break;
      }
      case 'transient': {
        const waitMs = sender.retryDelayMs(attempts);
        await repo.settleClaim(
          ctx.db,
          row.id,
          claimToken,
          waitMs === null
            ? { status: 'failed', attempts, lastError: result.error }
            : { status: 'pending', attempts, nextAttemptAt: at + waitMs, lastError: result.error },
        );
        if (waitMs === null) onGiveUp({ id: row.id, kind: sender.kind, serviceId: row.serviceId, lastError: result.error });
        break;
      }
      case 'permanent':
        await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'failed', attempts, lastError: result.error });
        onGiveUp({ id: row.id, kind: sender.kind, serviceId: row.serviceId, lastError: result.error });
        break;
    }
  }
  return { claimed: rows.length, delivered };
}

/** A service's rows of one kind that were given up, and those still waiting: the dashboard's account of them. */
export async function outboxReport(ctx: AppContext, serviceId: string, kind: Exclude<OutboxKind, 'chat'>, limit: number) {
  const [failed, waiting] = await Promise.all([
    repo.recentFailures(ctx.db, serviceId, kind, limit),
    repo.waitingRows(ctx.db, serviceId, kind, limit),
  ]);
  return { failed, waiting };
}
