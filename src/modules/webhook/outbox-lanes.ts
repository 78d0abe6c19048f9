import type { AppContext } from '../../context.ts';
import type { OutboxKind } from '../../db/schema.ts';
import { discordRoleSender } from '../discord-role/discord-role.service.ts';
import { eventSender } from '../events/events.service.ts';
import { discordMessageSender, discordTaskSender } from '../chat/chat.service.ts';
import { runOutboxPass, type OutboxSender } from './outbox.service.ts';
import * as repo from './webhook.repository.ts';
import { runWebhookWorkerPass } from './webhook.service.ts';

/**
 * Isolation between services (contract §22): the outbox is delivered in lanes, one lane per (kind, service). A lane
 * claims only its own service's rows of its kind and sends them in order, one at a time (so a service's chat
 * messages keep their order and a 429 still pauses the rest of its calls). Lanes of different services run side by
 * side: a receiver that accepts and never answers holds its own lane for one attempt's time limit (10 s at most) and
 * nobody else's. Each instance keeps its own set of busy lanes, so with many instances a stuck service holds at most
 * one lane per kind on each, and any instance with a free slot serves the others; the claim in the table (SKIP
 * LOCKED on PostgreSQL) keeps two instances from sending one row.
 */

/** Lanes one instance runs at once (sockets are cheap; the cap keeps a flood of services from opening thousands). */
export const MAX_LANES = 32;
/** Rows one lane claims per pass: a stuck lane holds few rows, and releases its slot for the longest-waiting next. */
export const LANE_BATCH = 5;

const senders: Record<Exclude<OutboxKind, 'chat'>, OutboxSender> = {
  discordRole: discordRoleSender,
  event: eventSender,
  discordMessage: discordMessageSender,
  discordTask: discordTaskSender,
};

/** The lanes under way on each instance (keyed by its context: two app instances in one process stay apart). */
const busyByInstance = new WeakMap<AppContext, Set<string>>();

const laneName = (lane: repo.DueLane) => `${lane.kind}:${lane.serviceId}`;

/**
 * A lane whose batch was full and all delivered goes on a few more rounds (a healthy backlog drains at once); one
 * that met a failure gives its slot back after one batch, so a stuck service holds a slot for 5 attempts at most.
 */
const LANE_ROUNDS = 4;

async function runLane(ctx: AppContext, lane: repo.DueLane): Promise<void> {
  for (let round = 0; round < LANE_ROUNDS; round += 1) {
    const { claimed, delivered } = await laneRound(ctx, lane);
    if (claimed < LANE_BATCH || delivered < claimed) return;
  }
}

async function laneRound(ctx: AppContext, lane: repo.DueLane): Promise<{ claimed: number; delivered: number }> {
  const scope = { serviceId: lane.serviceId, batch: LANE_BATCH };
  if (lane.kind === 'chat') {
    return runWebhookWorkerPass(
      ctx,
      (message) =>
        ctx.log.warn({ messageId: message.id, serviceId: message.serviceId, lastError: message.lastError }, 'webhook message given up'),
      scope,
    );
  }
  return runOutboxPass(
    ctx,
    senders[lane.kind],
    (row) => ctx.log.warn({ messageId: row.id, kind: row.kind, serviceId: row.serviceId, lastError: row.lastError }, 'outbox row given up'),
    scope,
  );
}

/**
 * One pass of the delivery job: starts a lane for every service with something due whose lane is not already
 * running here (up to MAX_LANES), and waits for the lanes it started. The job may overlap itself: a pass started
 * while an earlier one waits on a stuck receiver starts the other services' lanes at once.
 */
export async function runOutboxLanes(ctx: AppContext): Promise<void> {
  let busy = busyByInstance.get(ctx);
  if (!busy) busyByInstance.set(ctx, (busy = new Set()));
  const lanes = await repo.dueLanes(ctx.db, ctx.clock(), MAX_LANES * 4);
  const started: Array<Promise<void>> = [];
  for (const lane of lanes) {
    if (busy.size >= MAX_LANES) break;
    const name = laneName(lane);
    if (busy.has(name)) continue;
    busy.add(name);
    const owned = busy;
    started.push(
      runLane(ctx, lane)
        .catch((err: unknown) => ctx.log.error({ err, lane: name }, 'outbox lane failed'))
        .finally(() => owned.delete(name)),
    );
  }
  await Promise.all(started);
}
