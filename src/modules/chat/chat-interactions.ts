import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { ServiceRow } from '../services/services.service.ts';
import { myKeys, redeem, resetOwnHwid, roleFor, scriptFor } from './chat-buyer.ts';
import { followUp, type FollowUpTarget } from './chat-follow-up.ts';
import { STAFF_COMMANDS, type StaffInput } from './chat-staff.ts';
import { enqueueTask } from './chat-tasks.ts';
import { STRANGER, teamMember } from './chat-team.ts';
import { DEFERRED, InteractionType, REDEEM_MODAL, reply, ResponseType, type InteractionResponse } from './chat-words.ts';
import * as repo from './chat.repository.ts';

/**
 * Discord's interactions, translated (contract §4, §24): a slash command (type 2), a panel button (3) or the redeem
 * modal's submit (5) becomes one call of a buyer or staff action, and its words become the answer.
 *
 * Two guarantees live here (contract §28). Discord gives up after 3 s, so the work races a timer: what is done by
 * DEFER_AFTER_MS is answered directly, anything later is answered "thinking…" (type 5) and its result follows through
 * the follow-up webhook, sent by the durable outbox. Nothing on this path calls Discord, so a hanging or refusing
 * Discord cannot hold an answer. And Discord retries an interaction with the same id: the id is claimed in the
 * database before any work, so a retry answers what the first delivery answered (or "thinking…" while it runs) and
 * never acts twice.
 */

export const DEFER_AFTER_MS = 2_000;

export interface Interaction {
  id?: unknown;
  application_id?: unknown;
  token?: unknown;
  type?: unknown;
  guild_id?: unknown;
  member?: { user?: { id?: unknown } };
  user?: { id?: unknown };
  data?: {
    name?: unknown;
    custom_id?: unknown;
    options?: Array<{ name?: unknown; value?: unknown }>;
    components?: Array<{ components?: Array<{ custom_id?: unknown; value?: unknown }> }>;
  };
}

const isSnowflake = (value: unknown): value is string => typeof value === 'string' && /^\d{17,20}$/.test(value);

function option(interaction: Interaction, name: string): unknown {
  return interaction.data?.options?.find((o) => o?.name === name)?.value;
}
const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
const int = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : null);

function modalValue(interaction: Interaction, id: string): string | null {
  for (const row of interaction.data?.components ?? []) {
    for (const c of row?.components ?? []) if (c?.custom_id === id) return text(c.value);
  }
  return null;
}

type Work = { kind: 'buyer'; run: () => Promise<string> } | { kind: 'staff'; name: string } | { kind: 'modal' };

function workOf(ctx: AppContext, service: ServiceRow, interaction: Interaction, userId: string): Work | null {
  const type = interaction.type;
  const name = interaction.data?.name;
  const custom = interaction.data?.custom_id;
  if (type === InteractionType.MESSAGE_COMPONENT) {
    switch (custom) {
      case 'kw:redeem':
        return { kind: 'modal' };
      case 'kw:script':
        return { kind: 'buyer', run: () => scriptFor(ctx, service, userId) };
      case 'kw:reset':
        return { kind: 'buyer', run: () => resetOwnHwid(ctx, service, userId) };
      case 'kw:role':
        return { kind: 'buyer', run: () => roleFor(ctx, service, userId) };
      case 'kw:me':
        return { kind: 'buyer', run: () => myKeys(ctx, service, userId) };
      default:
        return null;
    }
  }
  if (type === InteractionType.MODAL_SUBMIT) {
    return custom === 'kw:redeem-modal' ? { kind: 'buyer', run: () => redeem(ctx, service, userId, modalValue(interaction, 'key')) } : null;
  }
  switch (name) {
    case 'redeem':
      return { kind: 'buyer', run: () => redeem(ctx, service, userId, text(option(interaction, 'key'))) };
    case 'script':
      return { kind: 'buyer', run: () => scriptFor(ctx, service, userId) };
    case 'resethwid':
      return { kind: 'buyer', run: () => resetOwnHwid(ctx, service, userId) };
    default:
      return typeof name === 'string' && name in STAFF_COMMANDS ? { kind: 'staff', name } : null;
  }
}

function staffInput(interaction: Interaction): StaffInput {
  const user = option(interaction, 'user');
  const role = option(interaction, 'role');
  return {
    user: isSnowflake(user) ? user : null,
    role: isSnowflake(role) ? role : null,
    days: int(option(interaction, 'days')),
    note: text(option(interaction, 'note'))?.slice(0, 256) ?? null,
    reason: text(option(interaction, 'reason'))?.slice(0, 256) ?? null,
  };
}

/** An expected refusal (quota, role, input) is said as it is; anything else is logged and said in general words. */
function wordsOf(ctx: AppContext, error: unknown): string {
  if (error instanceof AppError && error.status < 500) return error.message.endsWith('.') ? error.message : `${error.message}.`;
  ctx.log.error({ err: error }, 'discord interaction failed');
  return 'Something went wrong on our side; nothing more was done. Try again in a minute.';
}

async function staffWork(
  ctx: AppContext,
  service: ServiceRow,
  interaction: Interaction,
  userId: string,
  name: string,
  target: FollowUpTarget | null,
) {
  const command = STAFF_COMMANDS[name]!;
  const team = await teamMember(ctx, service, userId, command.actions);
  if (team.kind === 'stranger') return STRANGER;
  if (team.kind === 'forbidden') return `Your role on this service (${team.role}) does not allow /${name}.`;
  const input = staffInput(interaction);
  if (command.run) return command.run(ctx, service, team.actor, input);
  // /mass-whitelist: queued for the delivery job; "thinking…" now, the result through the follow-up.
  if (!input.role) return 'Name the role: `/mass-whitelist role:@Buyers`.';
  if (input.days !== null && (input.days < 1 || input.days > 3650)) return 'days must be 1 to 3650 (leave it out for lifetime keys).';
  if (!target) return 'This interaction carries no follow-up token; run the command again.';
  const task = { task: 'mass-whitelist' as const, discordUserId: userId, roleId: input.role, days: input.days, followUp: target };
  await ctx.db.transaction().execute(async (trx) => {
    await enqueueTask(trx, service.id, task, ctx.clock());
    await repo.storeInteractionAnswer(trx, target.interactionId, JSON.stringify(DEFERRED));
  });
  ctx.jobs.kick('webhook-delivery');
  return null;
}

export async function handleInteraction(ctx: AppContext, service: ServiceRow, interaction: Interaction): Promise<InteractionResponse> {
  await repo.markVerified(ctx.db, service.id, ctx.clock());
  if (interaction.type === InteractionType.PING) return { type: ResponseType.PONG };
  const type = interaction.type;
  if (type !== InteractionType.APPLICATION_COMMAND && type !== InteractionType.MESSAGE_COMPONENT && type !== InteractionType.MODAL_SUBMIT) {
    return reply('This kind of interaction is not supported.');
  }
  // Only the bound server is served: a bot invited elsewhere must not hand out this service's keys.
  if (!service.chatGuildId || interaction.guild_id !== service.chatGuildId) {
    return reply('This server is not connected to this service, so its commands are not available here.');
  }
  const userId = interaction.member?.user?.id ?? interaction.user?.id;
  if (!isSnowflake(userId)) return reply('Your user id could not be read from this interaction.');
  const work = workOf(ctx, service, interaction, userId);
  if (!work) return reply('Unknown command.');
  if (work.kind === 'modal') return REDEEM_MODAL;
  if (!isSnowflake(interaction.id)) return reply('This interaction has no id; try again.');
  const interactionId = interaction.id;
  if (!(await repo.claimInteraction(ctx.db, interactionId, service.id, ctx.clock()))) {
    const answer = await repo.interactionAnswer(ctx.db, interactionId);
    return answer ? (JSON.parse(answer) as InteractionResponse) : DEFERRED;
  }
  const target: FollowUpTarget | null =
    isSnowflake(interaction.application_id) && typeof interaction.token === 'string' && /^[A-Za-z0-9._-]{1,500}$/.test(interaction.token)
      ? { interactionId, applicationId: interaction.application_id, token: interaction.token }
      : null;
  const running: Promise<string | null> = (
    work.kind === 'buyer' ? work.run() : staffWork(ctx, service, interaction, userId, work.name, target)
  ).catch((error: unknown) => wordsOf(ctx, error));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), DEFER_AFTER_MS);
  });
  const first = await Promise.race([running, late]);
  clearTimeout(timer);
  if (first === null) return DEFERRED;
  if (first !== 'late') {
    const answer = reply(first);
    await repo.storeInteractionAnswer(ctx.db, interactionId, JSON.stringify(answer));
    return answer;
  }
  // Past the deadline: the result follows through the follow-up webhook when it is ready.
  void running
    .then(async (content) => {
      if (content !== null && target) await followUp(ctx, service.id, target, content);
    })
    .catch((error: unknown) => ctx.log.error({ err: error }, 'discord follow-up could not be queued'));
  return DEFERRED;
}
