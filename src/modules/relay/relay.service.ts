import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { digest } from '../../lib/secrets.ts';
import { serviceForClient } from '../services/services.service.ts';
import { validateKey } from '../validation/validation.service.ts';
import { postMessage, type PostOutcome } from '../webhook/webhook.service.ts';
import * as repo from './relay.repository.ts';

/** Messages a key may relay per minute (contract §13.3). */
export const RELAY_PER_MINUTE = 10;
const WINDOW_MS = 60_000;

export interface RelayInput {
  key: string;
  hwid?: string;
  content: string;
  username?: string;
}

/**
 * Counts one message for the key and refuses the 11th of a window, on every instance: in Redis when it
 * is configured, else in the database (relay_windows). A Redis outage falls back to the database.
 */
async function spendBudget(ctx: AppContext, serviceId: string, key: string): Promise<void> {
  const now = ctx.clock();
  const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  const keyDigest = digest(key);
  let count: number | null = null;
  if (ctx.redis) {
    const name = `keyward:relay:${serviceId}:${keyDigest}:${windowStart}`;
    try {
      count = await ctx.redis.incr(name);
      if (count === 1) await ctx.redis.pexpire(name, WINDOW_MS * 2);
    } catch {
      count = null;
    }
  }
  if (count === null) {
    count = await repo.countRelay(ctx.db, serviceId, keyDigest, windowStart);
    if (count === 1) await repo.dropEndedWindows(ctx.db, serviceId, keyDigest, windowStart);
  }
  if (count > RELAY_PER_MINUTE) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    throw new AppError('RATE_LIMITED', `At most ${RELAY_PER_MINUTE} messages a minute per key; try again in ${retryAfter} seconds`, {
      retryAfter,
    });
  }
}

/**
 * POST /public/relay/:service: an end user's script posts to the seller's webhook without holding its
 * address. The key must be valid (the same verdict as /keys/validate); mentions are always off.
 */
export async function relayMessage(ctx: AppContext, serviceRef: string, input: RelayInput): Promise<PostOutcome> {
  const service = await serviceForClient(ctx, serviceRef);
  const verdict = await validateKey(ctx, service.id, { key: input.key, hwid: input.hwid });
  if (!verdict.valid) {
    throw new AppError('KEY_REFUSED', `The key was refused (${verdict.code}): ${verdict.message}`, { reason: verdict.code });
  }
  await spendBudget(ctx, service.id, input.key);
  return postMessage(ctx, service, { content: input.content, username: input.username, noMentions: true });
}
