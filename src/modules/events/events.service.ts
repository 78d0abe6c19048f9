import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { invalid, notFound } from '../../errors.ts';
import { iso } from '../../lib/time.ts';
import { OutboundNetworkError, OutboundRefused, send, type OutboundResponse } from '../../net/outbound.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { dayLongRetryDelayMs, enqueueOutbox, outboxId, type OutboxAttempt, type OutboxSender } from '../webhook/outbox.service.ts';
import { retryAfterMs } from '../webhook/webhook.service.ts';
import * as repo from './events.repository.ts';
import { EVENT_TYPES } from './events.schemas.ts';

/** The event names of contract §12.4. */
export type EventType = (typeof EVENT_TYPES)[number];
/** Sent only by "Send test event", only to the endpoint it names. */
export const TEST_EVENT = 'keyward.test';

const MAX_ENDPOINTS = 20;

/** A key as an event shows it: as it stands after the change (contract §12.4). */
export function keyEventData(
  serviceId: string,
  key: { key: string; hwid?: string | null; chatId: string | null; expiresAt: number | null },
): Record<string, unknown> {
  return { serviceId, key: key.key, hwid: key.hwid ?? null, chatId: key.chatId, expiresAt: iso(key.expiresAt) };
}

const subscribed = (events: string, type: string) => {
  const names = JSON.parse(events) as string[];
  return names.includes('*') || names.includes(type);
};

/**
 * The one call point for outbound events (contract §12.4). Called inside the transaction of the change, so each
 * subscribed endpoint's outbox row commits or rolls back with it; the delivery job sends it afterwards.
 */
export async function emitEvent(trx: Db, serviceId: string, type: EventType, data: Record<string, unknown>, now: number): Promise<void> {
  const endpoints = await repo.listEndpoints(trx, serviceId);
  if (endpoints.length === 0) return;
  const payload = JSON.stringify({ type, timestamp: iso(now), data });
  for (const endpoint of endpoints) {
    if (!subscribed(endpoint.events, type)) continue;
    await enqueueOutbox(trx, { kind: 'event', serviceId, target: endpoint.id, url: endpoint.url, payload, now });
  }
}

/** Whether any endpoint listens (a bulk change reads its keys' data only then). */
export const hasEventEndpoints = async (db: Db, serviceId: string) => (await repo.countEndpoints(db, serviceId)) > 0;

/** Starts delivery now instead of at the worker's next tick (after the change's transaction committed). */
export const kickEventDelivery = (ctx: AppContext) => ctx.jobs.kick('webhook-delivery');

function checkUrl(ctx: AppContext, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('url', 'url must be a full address such as https://example.com/keyward-events');
  }
  if (url.username || url.password) throw invalid('url', 'url must not contain a user name or password');
  const listed = ctx.config.eventWebhookOrigins.includes(url.origin);
  if (url.protocol !== 'https:' && !listed) throw invalid('url', 'url must start with https:// (plain http is not allowed)');
  return url.href;
}

function checkEvents(events: string[]): string[] {
  if (events.includes('*')) {
    if (events.length !== 1) throw invalid('events', 'events must be ["*"] alone, or a list of event names without "*"');
    return ['*'];
  }
  const unknown = events.filter((name) => !(EVENT_TYPES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw invalid('events', `events has unknown names (${unknown.join(', ')}); the names are ${EVENT_TYPES.join(', ')}, or "*" for all`);
  }
  return [...new Set(events)];
}

const endpointView = (row: { id: string; url: string; events: string; createdAt: number }) => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  createdAt: iso(row.createdAt)!,
});

export async function createEndpoint(ctx: AppContext, serviceId: string, body: { url: string; events: string[] }, actor: Actor) {
  const url = checkUrl(ctx, body.url);
  const events = checkEvents(body.events);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const now = ctx.clock();
  const row = { id: randomUUID(), serviceId, url, events: JSON.stringify(events), secretSealed: ctx.sealer.seal(secret), createdAt: now };
  await ctx.db.transaction().execute(async (trx) => {
    if ((await repo.countEndpoints(trx, serviceId)) >= MAX_ENDPOINTS) {
      throw invalid('url', `a service has at most ${MAX_ENDPOINTS} event endpoints; delete one first`);
    }
    await repo.insertEndpoint(trx, row);
    await recordServiceAudit(trx, actor, serviceId, 'eventEndpoint.create', null, { id: row.id, url, events }, now);
  });
  return { ...endpointView(row), secret };
}

export async function listEndpoints(ctx: AppContext, serviceId: string) {
  const httpOrigins = ctx.config.eventWebhookOrigins.filter((origin) => origin.startsWith('http://'));
  return { items: (await repo.listEndpoints(ctx.db, serviceId)).map(endpointView), httpOrigins };
}

export async function deleteEndpoint(ctx: AppContext, serviceId: string, id: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const current = await repo.findEndpoint(trx, serviceId, id);
    const result = await repo.deleteEndpoint(trx, serviceId, id);
    if (!current || Number(result.numDeletedRows) === 0) throw notFound('Event endpoint');
    await recordServiceAudit(trx, actor, serviceId, 'eventEndpoint.delete', null, { id, url: current.url }, ctx.clock());
  });
  return { deleted: 1 };
}

export async function listDeliveries(ctx: AppContext, serviceId: string, id: string) {
  if (!(await repo.findEndpoint(ctx.db, serviceId, id))) throw notFound('Event endpoint');
  const rows = await repo.listDeliveries(ctx.db, id);
  return {
    items: rows.map((row) => ({
      id: row.id,
      messageId: row.messageId,
      type: row.eventType,
      attempt: row.attempt,
      ok: row.ok === 1,
      statusCode: row.statusCode,
      error: row.error,
      attemptedAt: iso(row.attemptedAt)!,
    })),
  };
}

/** "Send test event": one `keyward.test` event to this endpoint only, through the same outbox as real ones. */
export async function sendTestEvent(ctx: AppContext, serviceId: string, id: string) {
  const endpoint = await repo.findEndpoint(ctx.db, serviceId, id);
  if (!endpoint) throw notFound('Event endpoint');
  const now = ctx.clock();
  const payload = JSON.stringify({
    type: TEST_EVENT,
    timestamp: iso(now),
    data: { serviceId, message: 'A test event sent from Keyward.' },
  });
  const messageId = await enqueueOutbox(ctx.db, { kind: 'event', serviceId, target: id, url: endpoint.url, payload, now });
  kickEventDelivery(ctx);
  return { messageId };
}

/**
 * The Standard Webhooks signature: base64 HMAC-SHA256 under the secret's bytes (base64 after "whsec_") of
 * "<id>.<timestamp>.<body>". Five lines on node:crypto; the `standardwebhooks` package would add a dependency
 * (and its own base64 library) for the same computation.
 */
export function signature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

const describe = (response: OutboundResponse) => `HTTP ${response.status}`;

export const eventSender: OutboxSender = {
  kind: 'event',
  rateLimitSharedByService: false,
  retryDelayMs: dayLongRetryDelayMs,
  async send(ctx, row): Promise<OutboxAttempt> {
    const endpoint = row.target ? await repo.endpointForDelivery(ctx.db, row.target) : undefined;
    if (!endpoint) return { kind: 'skipped', reason: 'the endpoint was deleted' };
    const now = ctx.clock();
    const timestamp = Math.floor(now / 1000);
    const type = (JSON.parse(row.payload) as { type: string }).type;
    let result: OutboxAttempt;
    let statusCode: number | null = null;
    try {
      const response = await send(endpoint.url, ctx.outbound.events, {
        method: 'POST',
        rawJson: row.payload,
        userAgent: 'Keyward (event delivery)',
        headers: {
          'webhook-id': row.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature(ctx.sealer.open(endpoint.secretSealed), row.id, timestamp, row.payload),
        },
      });
      statusCode = response.status;
      if (response.status >= 200 && response.status < 300) result = { kind: 'delivered' };
      else if (response.status === 429 && retryAfterMs(response, now) !== null)
        result = { kind: 'rate-limited', waitMs: retryAfterMs(response, now)! };
      else result = { kind: 'transient', error: describe(response) };
    } catch (error) {
      if (error instanceof OutboundRefused) result = { kind: 'permanent', error: `refused: ${error.message}` };
      else if (error instanceof OutboundNetworkError) result = { kind: 'transient', error: error.message };
      else throw error;
    }
    await repo.recordDelivery(ctx.db, {
      id: outboxId(ctx.clock()),
      endpointId: endpoint.id,
      messageId: row.id,
      eventType: type,
      attempt: row.attempts + 1,
      statusCode,
      ok: result.kind === 'delivered' ? 1 : 0,
      error: result.kind === 'delivered' ? null : 'error' in result ? result.error : 'HTTP 429',
      attemptedAt: now,
    });
    return result;
  },
};
