import type { AppContext } from '../../context.ts';
import { notFound, unauthorized } from '../../errors.ts';
import { verifyEd25519 } from '../../lib/ed25519.ts';
import { findServiceByRef, type ServiceRow } from '../services/services.service.ts';
import { forgetService } from '../services/services.service.ts';
import { settingsOf } from '../service-settings/service-settings.service.ts';
import { isUsableNow, keysByChat, resetHwid, scriptLoadstrings } from '../keys/keys.service.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import { endUserActor, type Actor } from '../audit/actor.ts';
import * as repo from './chat.repository.ts';
import { syncChatRoles } from '../discord-role/discord-role.service.ts';

// A chat command is an end user acting; the request comes from the platform's servers, so no user address is known.
const CHAT_USER = endUserActor(null);

// ---- Server binding -------------------------------------------------------------------------

export async function connectGuild(ctx: AppContext, service: ServiceRow, guildId: string, guildName: string, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    await repo.bindGuild(trx, service.id, guildId, guildName);
    await recordServiceAudit(trx, actor, service, 'chat.connect', guildId, { guildName }, ctx.clock());
  });
  forgetService(ctx, service);
  return settingsOf({ ...service, chatGuildId: guildId, chatGuildName: guildName });
}

export async function disconnectGuild(ctx: AppContext, service: ServiceRow, actor: Actor) {
  await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.unbindGuild(trx, service.id);
    if (Number(result.numUpdatedRows) === 0) throw notFound('Chat server binding');
    await recordServiceAudit(trx, actor, service, 'chat.disconnect', service.chatGuildId, {}, ctx.clock());
  });
  forgetService(ctx, service);
  return settingsOf({ ...service, chatGuildId: null, chatGuildName: null });
}

// ---- HTTP interactions ----------------------------------------------------------------------

/** The platform's interaction and response types we use (values fixed by the platform). */
export const InteractionType = { PING: 1, APPLICATION_COMMAND: 2 } as const;
export const ResponseType = { PONG: 1, CHANNEL_MESSAGE: 4 } as const;
export const EPHEMERAL = 64;
/** Signatures older or newer than this are refused, so a captured request cannot be replayed later. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;
const MESSAGE_LIMIT = 2000;

export interface Interaction {
  type?: unknown;
  guild_id?: unknown;
  member?: { user?: { id?: unknown } };
  user?: { id?: unknown };
  data?: { name?: unknown; options?: Array<{ name?: unknown; value?: unknown }> };
}

export type InteractionResponse =
  { type: 1 } | { type: 4; data: { content: string; flags: typeof EPHEMERAL; allowed_mentions: { parse: [] } } };

const reply = (content: string): InteractionResponse => ({
  type: ResponseType.CHANNEL_MESSAGE,
  data: {
    content: content.length > MESSAGE_LIMIT ? `${content.slice(0, MESSAGE_LIMIT - 1)}…` : content,
    flags: EPHEMERAL,
    allowed_mentions: { parse: [] },
  },
});

/**
 * Checks the platform's signature over timestamp + raw body with the service's public key, before
 * anything in the body is looked at. A service without a key accepts nothing.
 */
export async function authenticInteractionService(
  ctx: AppContext,
  serviceRef: string,
  rawBody: Buffer,
  signature: string | undefined,
  timestamp: string | undefined,
): Promise<ServiceRow> {
  const service = await findServiceByRef(ctx.db, serviceRef);
  if (!service) throw notFound('Service');
  const refuse = () => unauthorized('The interaction signature is not valid');
  if (!service.chatInteractionsPublicKey || !signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) throw refuse();
  if (Math.abs(ctx.clock() - Number(timestamp) * 1000) > SIGNATURE_WINDOW_MS) throw refuse();
  const message = Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]);
  if (!verifyEd25519(service.chatInteractionsPublicKey, message, signature)) throw refuse();
  return service;
}

const isChatId = (value: unknown): value is string => typeof value === 'string' && /^\d{17,20}$/.test(value);

function optionValue(interaction: Interaction, name: string): string | null {
  const option = interaction.data?.options?.find((o) => o?.name === name);
  return typeof option?.value === 'string' ? option.value.trim() : null;
}

export async function handleInteraction(ctx: AppContext, service: ServiceRow, interaction: Interaction): Promise<InteractionResponse> {
  if (interaction.type === InteractionType.PING) return { type: ResponseType.PONG };
  if (interaction.type !== InteractionType.APPLICATION_COMMAND) return reply('This kind of interaction is not supported.');

  // Only the bound server is served: a bot invited elsewhere must not hand out this service's keys.
  if (!service.chatGuildId || interaction.guild_id !== service.chatGuildId) {
    return reply('This server is not connected to this service, so its commands are not available here.');
  }
  const userId = interaction.member?.user?.id ?? interaction.user?.id;
  if (!isChatId(userId)) return reply('Your user id could not be read from this interaction.');

  switch (interaction.data?.name) {
    case 'redeem':
      return redeem(ctx, service, userId, optionValue(interaction, 'key'));
    case 'resethwid':
      return resetOwnHwid(ctx, service, userId);
    case 'script':
      return scriptFor(ctx, service, userId);
    default:
      return reply('Unknown command.');
  }
}

async function redeem(ctx: AppContext, service: ServiceRow, userId: string, key: string | null): Promise<InteractionResponse> {
  if (!key || key.length > 64 || !/^[\x21-\x7E]+$/.test(key)) return reply('Give your key: `/redeem key:<your key>`.');
  const linked = await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.linkKeyToChat(trx, service.id, key, userId))) return false;
    await recordServiceAudit(trx, CHAT_USER, service.id, 'key.update', key, { chatId: userId }, ctx.clock());
    await syncChatRoles(trx, service.id, [userId], ctx.clock());
    return true;
  });
  if (linked) return reply('Your key is now linked to your account. Use `/script` to get the script.');
  if (await repo.keyExists(ctx.db, service.id, key)) return reply('This key is already linked to another user.');
  return reply('That key does not exist.');
}

async function resetOwnHwid(ctx: AppContext, service: ServiceRow, userId: string): Promise<InteractionResponse> {
  const keys = await repo.activeKeysOfChatUser(ctx.db, service.id, userId);
  if (keys.length === 0) return reply('You have no activated key linked to your account. Link one with `/redeem`.');
  const bound = keys
    .filter((k) => k.hwid !== null)
    .sort((a, b) => (b.lastUsedAt ?? b.activatedAt) - (a.lastUsedAt ?? a.activatedAt) || a.key.localeCompare(b.key));
  if (bound.length === 0) return reply('Your key is not bound to a device, so there is nothing to reset.');
  const outcome = await resetHwid(ctx, service, bound[0]!.key, CHAT_USER);
  switch (outcome.kind) {
    case 'reset':
      return reply(
        `Your HWID has been reset. The next reset is possible <t:${Math.floor(Date.parse(outcome.result.nextResetAt) / 1000)}:R>.`,
      );
    case 'cooldown':
      return reply(`Your HWID was reset recently. Try again <t:${Math.floor(ctx.clock() / 1000) + outcome.retryAfter}:R>.`);
    case 'not-bound':
    case 'not-found':
      return reply('Your key is not bound to a device, so there is nothing to reset.');
  }
}

async function scriptFor(ctx: AppContext, service: ServiceRow, userId: string): Promise<InteractionResponse> {
  // The buyer reads the keys linked to its own Discord account: an end user, not a member with a scope.
  const { keys } = await keysByChat(ctx, service.id, userId, endUserActor(null));
  const now = ctx.clock();
  const usable = keys.find((k) =>
    isUsableNow({ status: k.status, banExpiresAt: null, expiresAt: k.expiresAt === null ? null : Date.parse(k.expiresAt) }, now),
  );
  if (!usable) return reply('You need a valid key linked to your account first: `/redeem key:<your key>`.');
  const scripts = await scriptLoadstrings(ctx, service.id);
  if (scripts.length === 0) return reply('This service has no scripts available yet.');
  const blocks = scripts.map((s) => `**${s.name}**\n\`\`\`lua\nscript_key = "${usable.key}";\n${s.loadstring}\n\`\`\``);
  return reply(blocks.join('\n'));
}
