import { counted } from '../../lib/plain-words.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { keysByChat } from '../keys/keys.service.ts';
import { findServiceByRef } from '../services/services.service.ts';
import { enqueueOutbox, type OutboxAttempt, type OutboxSender } from '../webhook/outbox.service.ts';
import { discordRequest } from './discord-api.ts';
import { massNotice } from './chat-notices.service.ts';
import { followUp, type FollowUpTarget } from './chat-follow-up.ts';
import { teamMember } from './chat-team.ts';
import { whitelistUser } from './chat-staff.ts';

/**
 * Deferred interaction work (contract §24.3 /mass-whitelist): answered "thinking…" at once, queued in the outbox as a
 * `discordTask` row so it survives a restart, and run by the delivery job, which reads the server's members page by
 * page. It is safe to run again (after a 429 or a crash): a member who got a key has a valid one and is skipped. Its
 * result reaches the staff member through the interaction's follow-up.
 */

export interface MassWhitelistTask {
  task: 'mass-whitelist';
  discordUserId: string;
  roleId: string;
  days: number | null;
  followUp: FollowUpTarget;
}

export const enqueueTask = (db: Db, serviceId: string, task: MassWhitelistTask, now: number) =>
  enqueueOutbox(db, { kind: 'discordTask', serviceId, target: task.discordUserId, url: task.task, payload: JSON.stringify(task), now });

const PAGE = 1000;
/** A page of 1000 members is about 0.5 MB. */
const PAGE_BYTES = 4 * 1024 * 1024;

interface GuildMember {
  user?: { id?: unknown; bot?: unknown };
  roles?: unknown;
}

async function run(ctx: AppContext, serviceId: string, task: MassWhitelistTask): Promise<OutboxAttempt> {
  const service = await findServiceByRef(ctx.db, serviceId);
  const finish = async (content: string) => {
    await followUp(ctx, serviceId, task.followUp, content);
    return { kind: 'delivered' } as const;
  };
  if (!service?.chatGuildId || !service.chatBotTokenSealed)
    return finish('The Discord server or the bot token is no longer set up; nothing was done.');
  // The member's role is read again now: one removed since the command is a stranger.
  const team = await teamMember(ctx, service, task.discordUserId, ['keys.generate', 'keys.manage']);
  if (team.kind !== 'member')
    return finish(
      team.kind === 'stranger' ? "You are not on this service's team." : `Your role on this service (${team.role}) does not allow this.`,
    );
  const botToken = ctx.sealer.open(service.chatBotTokenSealed);
  const holders: string[] = [];
  let after = '0';
  for (;;) {
    const page = await discordRequest(ctx, {
      method: 'GET',
      path: `/api/v10/guilds/${service.chatGuildId}/members?limit=${PAGE}&after=${after}`,
      botToken,
      timeoutMs: 10_000,
      maxResponseBytes: PAGE_BYTES,
    });
    if (!page.ok) {
      if (page.kind === 'rate-limited') return { kind: 'rate-limited', waitMs: page.waitMs };
      if (page.kind === 'transient') return { kind: 'transient', error: page.error };
      return finish(`Discord refused to list the server's members: ${page.error}. The bot needs the Server Members intent.`);
    }
    const members = Array.isArray(page.body) ? (page.body as GuildMember[]) : [];
    for (const m of members) {
      const id = m.user?.id;
      if (typeof id !== 'string' || m.user?.bot === true) continue;
      if (Array.isArray(m.roles) && m.roles.includes(task.roleId)) holders.push(id);
    }
    const last = members.at(-1)?.user?.id;
    if (members.length < PAGE || typeof last !== 'string') break;
    after = last;
  }
  let made = 0;
  let hadKey = 0;
  let refused: string | null = null;
  for (const user of holders) {
    if ((await keysByChat(ctx, service.id, user, team.actor)).anyValid) {
      hadKey += 1;
      continue;
    }
    try {
      await whitelistUser(ctx, service, team.actor, user, task.days, null);
      made += 1;
    } catch (error) {
      // A reseller's quota ran out, or the key policy refuses: stop, and say so.
      if (!(error instanceof AppError)) throw error;
      refused = error.message;
      break;
    }
  }
  await massNotice(
    ctx.db,
    service.id,
    'Mass whitelist',
    { 'Role holders': holders.length, 'Keys made': made, 'Already had one': hadKey },
    team.actor,
    ctx.clock(),
  );
  const stopped = refused ? ` Stopped early: ${refused}` : '';
  return finish(
    `Mass whitelist of <@&${task.roleId}>: ${counted(holders.length, 'member')} with the role, ${made} got a new ${task.days === null ? 'lifetime' : `${task.days}-day`} key, ${hadKey} already had a valid one.${stopped}`,
  );
}

/** A task's run takes as long as the server is big; it is not retried on a schedule beyond a few tries. */
const SCHEDULE_MS = [5_000, 30_000, 120_000, 300_000];

export const discordTaskSender: OutboxSender = {
  kind: 'discordTask',
  rateLimitSharedByService: false,
  retryDelayMs: (failed) => SCHEDULE_MS[failed - 1] ?? null,
  async send(ctx, row) {
    const task = JSON.parse(row.payload) as MassWhitelistTask;
    const result = await run(ctx, row.serviceId, task);
    if (result.kind === 'transient' && SCHEDULE_MS[row.attempts] === undefined) {
      await followUp(
        ctx,
        row.serviceId,
        task.followUp,
        `Discord did not answer while listing the members (${result.error}); nothing more was done. Try again later.`,
      );
    }
    if (result.kind !== 'delivered') return result;
    ctx.jobs.kick('webhook-delivery');
    return result;
  },
};
