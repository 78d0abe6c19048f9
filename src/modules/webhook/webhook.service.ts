import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import { AppError, notFound } from '../../errors.ts';
import { OutboundNetworkError, OutboundRefused, postJson, type OutboundPolicy, type OutboundResponse } from '../../net/outbound.ts';
import { CHAT_WEBHOOK_HOSTS, openWebhookUrl } from '../../lib/webhook-url.ts';
import { findAccountService, type ServiceRow } from '../services/services.service.ts';
import * as repo from './webhook.repository.ts';
import type { OutboxStatus } from '../../db/schema.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { iso } from '../../lib/time.ts';

/** A claim outlives the longest call (TIMEOUT_MS) by far, so a live instance never loses its claim mid-send. */
export const LEASE_MS = 60_000;
export const TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const MAX_ATTEMPTS = 8;
const BACKOFF_BASE_MS = 2_000;
const BACKOFF_CAP_MS = 10 * 60_000;
/** Longer waits than this are the platform misbehaving; the message is retried no later than that. */
const RETRY_AFTER_CAP_MS = 60 * 60_000;
const CLAIM_BATCH = 20;

let sequence = 0;
/** Ids sort in acceptance order (time, then this process's counter), so the queue keeps messages in order. */
function messageId(now: number): string {
  sequence = (sequence + 1) % 0x1_0000_0000;
  return `${now.toString(16).padStart(12, '0')}-${sequence.toString(16).padStart(8, '0')}-${randomUUID().slice(0, 8)}`;
}

export interface WebhookPost {
  content: string;
  username?: string;
  /** No @everyone, role or user pings (the relay: the text comes from end users). */
  noMentions?: boolean;
}

export type PostOutcome = { delivered: true } | { delivered: false; queued: true };

export const PLATFORM_ORIGINS = [...CHAT_WEBHOOK_HOSTS].map((host) => `https://${host}`);

export function outboundPolicy(config: Config): OutboundPolicy {
  return {
    platformOrigins: PLATFORM_ORIGINS,
    explicitOrigins: config.chatWebhookOrigins,
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: MAX_RESPONSE_BYTES,
  };
}

/**
 * How long the platform asked us to wait, in ms. The `Retry-After` header is seconds (HTTP's unit);
 * the JSON body's `retry_after` is seconds as a float on current API versions and was whole
 * milliseconds on old ones, so a whole number of 1000 or more is read as milliseconds. When several
 * are present the longest wins: waiting a little longer is safe, sending early is not.
 */
export function retryAfterMs(response: OutboundResponse, now: number): number | null {
  const candidates: number[] = [];
  for (const name of ['retry-after', 'x-ratelimit-reset-after']) {
    const raw = response.headers[name];
    const value = typeof raw === 'string' ? Number(raw.trim()) : NaN;
    if (Number.isFinite(value) && value >= 0) candidates.push(value * 1000);
    else if (name === 'retry-after' && typeof raw === 'string' && !Number.isNaN(Date.parse(raw))) {
      candidates.push(Math.max(0, Date.parse(raw) - now));
    }
  }
  try {
    const body = JSON.parse(response.body) as { retry_after?: unknown };
    const value = body?.retry_after;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
      candidates.push(Number.isInteger(value) && value >= 1000 ? value : value * 1000);
    }
  } catch {
    // Not JSON: the headers decide.
  }
  if (candidates.length === 0) return null;
  return Math.min(RETRY_AFTER_CAP_MS, Math.ceil(Math.max(...candidates)));
}

/** Exponential backoff with jitter: attempt n waits between half and all of base·2^(n-1), capped. */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

type Attempt =
  | { kind: 'delivered' }
  | { kind: 'rate-limited'; waitMs: number }
  | { kind: 'transient'; error: string }
  | { kind: 'permanent'; error: string };

async function attempt(ctx: AppContext, row: repo.OutboxRow, url: string): Promise<Attempt> {
  let response: OutboundResponse;
  try {
    response = await postJson(url, JSON.parse(row.payload), ctx.outbound.webhook);
  } catch (error) {
    if (error instanceof OutboundRefused) return { kind: 'permanent', error: `refused: ${error.message}` };
    if (error instanceof OutboundNetworkError) return { kind: 'transient', error: error.message };
    throw error;
  }
  if (response.status >= 200 && response.status < 300) return { kind: 'delivered' };
  if (response.status === 429) {
    const waitMs = retryAfterMs(response, ctx.clock());
    if (waitMs === null) return { kind: 'transient', error: 'HTTP 429 without retry_after' };
    return { kind: 'rate-limited', waitMs };
  }
  if (response.status >= 500) return { kind: 'transient', error: `HTTP ${response.status}` };
  // 3xx (redirects are never followed) and every other 4xx: the platform will not take this message.
  return { kind: 'permanent', error: `HTTP ${response.status}` };
}

/** Sends one claimed message to `url` and records the outcome, if the claim still holds. */
async function deliverClaimed(ctx: AppContext, row: repo.OutboxRow, claimToken: string, url: string): Promise<Attempt> {
  const result = await attempt(ctx, row, url);
  const now = ctx.clock();
  const attempts = row.attempts + 1;
  switch (result.kind) {
    case 'delivered':
      await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'delivered', attempts, deliveredAt: now, lastError: null });
      break;
    case 'rate-limited': {
      // A 429 is the platform pacing us, not a failed attempt: it does not count towards MAX_ATTEMPTS.
      const until = now + result.waitMs;
      await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'pending', nextAttemptAt: until, lastError: 'HTTP 429' });
      await repo.deferService(ctx.db, row.serviceId, until);
      break;
    }
    case 'transient':
      await repo.settleClaim(
        ctx.db,
        row.id,
        claimToken,
        attempts >= MAX_ATTEMPTS
          ? { status: 'failed', attempts, lastError: result.error }
          : { status: 'pending', attempts, nextAttemptAt: now + backoffMs(attempts), lastError: result.error },
      );
      break;
    case 'permanent':
      await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'failed', attempts, lastError: result.error });
      break;
  }
  return result;
}

/**
 * POST /keys/api/webhook: the message is stored (already claimed by this call) before it is sent, so a
 * crash mid-send leaves it to the worker once the lease runs out. A message that finds earlier ones
 * still waiting joins the queue behind them instead of overtaking them or the platform's rate limit.
 */
export async function postMessage(ctx: AppContext, service: ServiceRow, post: WebhookPost): Promise<PostOutcome> {
  if (service.webhookEnabled !== 1 || !service.webhookUrl) {
    throw new AppError(
      'WEBHOOK_DISABLED',
      'The webhook is not enabled for this service; set webhookUrl and webhookEnabled in the settings',
    );
  }
  const now = ctx.clock();
  const payload = JSON.stringify({
    content: post.content,
    ...(post.username === undefined ? {} : { username: post.username }),
    ...(post.noMentions ? { allowed_mentions: { parse: [] } } : {}),
  });
  const id = messageId(now);
  const waitingUntil = await repo.backlogUntil(ctx.db, service.id);
  if (waitingUntil !== null) {
    await repo.insertMessage(ctx.db, {
      id,
      serviceId: service.id,
      url: service.webhookUrl,
      payload,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: Math.max(now, waitingUntil),
      createdAt: now,
    });
    return { delivered: false, queued: true };
  }
  const claimToken = randomUUID();
  const row: repo.OutboxRow = {
    id,
    kind: 'chat',
    target: null,
    serviceId: service.id,
    url: service.webhookUrl,
    payload,
    status: 'sending',
    attempts: 0,
    nextAttemptAt: now,
    claimToken,
    leaseUntil: now + LEASE_MS,
    lastError: null,
    createdAt: now,
    deliveredAt: null,
  };
  await repo.insertMessage(ctx.db, row);
  const result = await deliverClaimed(ctx, row, claimToken, openWebhookUrl(ctx.sealer, service.webhookUrl));
  if (result.kind === 'delivered') return { delivered: true };
  if (result.kind === 'permanent') {
    throw new AppError('WEBHOOK_DELIVERY_FAILED', 'The chat platform refused the message');
  }
  return { delivered: false, queued: true };
}

export interface WorkerPassResult {
  claimed: number;
  delivered: number;
}

/**
 * One pass of the delivery worker: claim what is due, send it in order. Exported so tests run passes
 * deterministically (with ctx.clock as the time); the background loop in webhook.routes.ts calls it too.
 */
/** A message the worker stopped trying: the caller logs it as a warning, so a failed delivery is never silent. */
export interface GivenUp {
  id: string;
  serviceId: string;
  lastError: string;
}

export async function runWebhookWorkerPass(
  ctx: AppContext,
  onGiveUp: (message: GivenUp) => void = () => {},
  scope: { serviceId?: string; batch?: number } = {},
): Promise<WorkerPassResult> {
  const now = ctx.clock();
  const claimToken = randomUUID();
  const rows = await repo.claimDue(
    ctx.db,
    ctx.dialect,
    now,
    claimToken,
    now + LEASE_MS,
    scope.batch ?? CLAIM_BATCH,
    'chat',
    scope.serviceId ?? null,
  );
  let delivered = 0;
  const pausedServices = new Map<string, number>();
  for (const row of rows) {
    const pausedUntil = pausedServices.get(row.serviceId);
    if (pausedUntil !== undefined) {
      // The platform just asked this webhook to wait: hand the rest back untouched.
      await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'pending', nextAttemptAt: Math.max(row.nextAttemptAt, pausedUntil) });
      continue;
    }
    // A batch can outlast one lease: re-check and extend the claim right before each send.
    if (!(await repo.renewClaim(ctx.db, row.id, claimToken, ctx.clock() + LEASE_MS))) continue;
    const webhook = await repo.currentWebhook(ctx.db, row.serviceId);
    if (!webhook?.webhookUrl || webhook.webhookEnabled !== 1) {
      await repo.settleClaim(ctx.db, row.id, claimToken, { status: 'failed', lastError: 'the webhook was switched off or removed' });
      onGiveUp({ id: row.id, serviceId: row.serviceId, lastError: 'the webhook was switched off or removed' });
      continue;
    }
    const result = await deliverClaimed(ctx, row, claimToken, openWebhookUrl(ctx.sealer, webhook.webhookUrl));
    if (result.kind === 'permanent' || (result.kind === 'transient' && row.attempts + 1 >= MAX_ATTEMPTS)) {
      onGiveUp({ id: row.id, serviceId: row.serviceId, lastError: result.error });
    }
    if (result.kind === 'delivered') delivered += 1;
    if (result.kind === 'rate-limited') pausedServices.set(row.serviceId, ctx.clock() + result.waitMs);
  }
  return { claimed: rows.length, delivered };
}

/** The owner's view of the webhook, token included (the only place it is shown unmasked). */
export async function revealWebhook(ctx: AppContext, accountId: string, serviceRef: string) {
  const service = await findAccountService(ctx.db, accountId, serviceRef);
  if (!service) throw notFound('Service');
  return { webhookUrl: openWebhookUrl(ctx.sealer, service.webhookUrl), webhookEnabled: service.webhookEnabled === 1 };
}

/** GET /keys/api/webhook/outbox: what happened to each message, so a failed delivery is not invisible. */
export async function listOutbox(ctx: AppContext, serviceId: string, page: PageRequest, status?: OutboxStatus) {
  const { rows, total } = await repo.listMessages(ctx.db, serviceId, status, page.offset, page.limit);
  const items = rows.map((row) => ({
    id: row.id,
    status: row.status,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAt: iso(row.createdAt)!,
    deliveredAt: iso(row.deliveredAt),
    nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
  }));
  return pageOf(items, total, page);
}

/** For /metrics: how many outbox messages wait in each state. */
export { outboxDepth } from './webhook.repository.ts';
