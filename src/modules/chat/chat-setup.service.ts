import type { AppContext } from '../../context.ts';
import { AppError, invalid } from '../../errors.ts';
import { iso } from '../../lib/time.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { findServiceByRef, forgetService, updateService, type ServiceRow } from '../services/services.service.ts';
import { COMMAND_NAMES, COMMANDS } from './chat-commands.ts';
import { discordRequest, type DiscordResult } from './discord-api.ts';
import { channelPermissions, guildPermissions, PERMISSION } from './discord-permissions.ts';
import { panelMessage, type PanelInput } from './chat-panel.ts';

/**
 * Setting Discord up from the dashboard (contract §24.1–24.2): registering the commands, the live checklist, posting
 * the buyer panel. These are the seller's own requests, so they may call Discord, each within a short time limit:
 * a page never hangs on Discord.
 */

/** Discord's answer, or its silence, must come within this on a seller's request. */
export const SETUP_TIMEOUT_MS = 4_000;

const providerError = (result: Extract<DiscordResult, { ok: false }>) => new AppError('PROVIDER_UNAVAILABLE', result.error);

function botTokenOf(ctx: AppContext, service: ServiceRow): string {
  if (!service.chatBotTokenSealed)
    throw invalid('chatBotToken', 'Set chatBotToken first (the token from the Bot page of the developer portal)');
  return ctx.sealer.open(service.chatBotTokenSealed);
}

async function remember(ctx: AppContext, service: ServiceRow, fields: { chatCommandsSyncedAt?: number; chatLastError: string | null }) {
  await updateService(ctx.db, service.id, fields);
  forgetService(ctx, service);
}

/** POST /keys/api/chat/commands/sync: registers every command in the bound server (one PUT replaces the set). */
export async function syncCommands(ctx: AppContext, service: ServiceRow, actor: Actor | null) {
  if (!service.chatApplicationId)
    throw invalid('chatApplicationId', 'Set chatApplicationId first (the application id of your Discord app)');
  if (!service.chatInteractionsPublicKey) {
    throw invalid('chatInteractionsPublicKey', 'Set chatInteractionsPublicKey first (the public key of your Discord app)');
  }
  if (!service.chatGuildId) throw invalid('chat', 'Bind your Discord server first');
  const botToken = botTokenOf(ctx, service);
  const result = await discordRequest(ctx, {
    method: 'PUT',
    path: `/api/v10/applications/${service.chatApplicationId}/guilds/${service.chatGuildId}/commands`,
    json: COMMANDS,
    botToken,
    timeoutMs: SETUP_TIMEOUT_MS,
  });
  if (!result.ok) {
    await remember(ctx, service, { chatLastError: result.error });
    throw providerError(result);
  }
  const at = ctx.clock();
  await remember(ctx, service, { chatCommandsSyncedAt: at, chatLastError: null });
  if (actor)
    await recordServiceAudit(ctx.db, actor, service, 'chat.commandsSync', service.chatGuildId, { commands: COMMAND_NAMES.length }, at);
  return { synced: COMMAND_NAMES, at: iso(at)! };
}

/**
 * After a settings save: syncs when everything needed is there, and never fails the save (a refusal is kept in
 * chatLastError for the checklist).
 */
export async function syncCommandsQuietly(ctx: AppContext, serviceId: string): Promise<void> {
  const service = await findServiceByRef(ctx.db, serviceId);
  if (!service?.chatApplicationId || !service.chatBotTokenSealed || !service.chatInteractionsPublicKey || !service.chatGuildId) return;
  try {
    await syncCommands(ctx, service, null);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
  }
}

interface Member {
  roles?: unknown;
}
interface Role {
  id: string;
  permissions: string;
  position: number;
}

/** GET /keys/api/chat/status: the checklist, read live from Discord (each read within the short time limit). */
export async function chatStatus(ctx: AppContext, service: ServiceRow) {
  const answer = {
    interactionsVerified: iso(service.chatVerifiedAt ?? null),
    commandsSyncedAt: iso(service.chatCommandsSyncedAt ?? null),
    botInServer: false,
    canManageRoles: false,
    canPostIn: {} as Record<string, boolean>,
    lastError: service.chatLastError ?? null,
  };
  if (service.chatLogChannelId) answer.canPostIn[service.chatLogChannelId] = false;
  if (!service.chatBotTokenSealed || !service.chatGuildId) return answer;
  const botToken = ctx.sealer.open(service.chatBotTokenSealed);
  const get = (path: string) => discordRequest(ctx, { method: 'GET', path: `/api/v10${path}`, botToken, timeoutMs: SETUP_TIMEOUT_MS });
  const me = await get('/users/@me');
  if (!me.ok) return { ...answer, lastError: me.error };
  const botId = (me.body as { id?: unknown }).id;
  if (typeof botId !== 'string') return { ...answer, lastError: 'Discord did not say who the bot is' };
  const guild = service.chatGuildId;
  const [member, roles, channel] = await Promise.all([
    get(`/guilds/${guild}/members/${botId}`),
    get(`/guilds/${guild}/roles`),
    service.chatLogChannelId ? get(`/channels/${service.chatLogChannelId}`) : Promise.resolve(null),
  ]);
  if (!member.ok) {
    const lastError =
      member.kind === 'permanent' && member.status === 404
        ? 'The bot is not in your Discord server: invite it with the link on the Discord page'
        : member.error;
    return { ...answer, lastError };
  }
  answer.botInServer = true;
  if (!roles.ok) return { ...answer, lastError: roles.error };
  const memberRoles = Array.isArray((member.body as Member).roles) ? ((member.body as Member).roles as string[]) : [];
  const guildRoles = Array.isArray(roles.body) ? (roles.body as Role[]) : [];
  const permissions = guildPermissions(guild, memberRoles, guildRoles);
  const highest = Math.max(0, ...guildRoles.filter((r) => memberRoles.includes(r.id)).map((r) => r.position));
  const buyerRole = guildRoles.find((r) => r.id === service.chatRoleId);
  answer.canManageRoles =
    (permissions & (PERMISSION.MANAGE_ROLES | PERMISSION.ADMINISTRATOR)) !== 0n && (!buyerRole || highest > buyerRole.position);
  if (channel && service.chatLogChannelId) {
    if (!channel.ok) return { ...answer, lastError: channel.error };
    const overwrites = (channel.body as { permission_overwrites?: unknown }).permission_overwrites;
    const inChannel = channelPermissions(permissions, guild, botId, memberRoles, Array.isArray(overwrites) ? overwrites : []);
    const needed = PERMISSION.VIEW_CHANNEL | PERMISSION.SEND_MESSAGES | PERMISSION.EMBED_LINKS;
    answer.canPostIn[service.chatLogChannelId] = (inChannel & needed) === needed;
  }
  return answer;
}

/** POST /keys/api/chat/panel: posts the buyer panel; each post is a new message (contract §24.2). */
export async function postPanel(ctx: AppContext, service: ServiceRow, input: PanelInput, actor: Actor) {
  const botToken = botTokenOf(ctx, service);
  const result = await discordRequest(ctx, {
    method: 'POST',
    path: `/api/v10/channels/${input.channelId}/messages`,
    json: panelMessage(service, input),
    botToken,
    timeoutMs: SETUP_TIMEOUT_MS,
  });
  if (!result.ok) {
    await remember(ctx, service, { chatLastError: result.error });
    throw providerError(result);
  }
  const messageId = String((result.body as { id?: unknown } | null)?.id ?? '');
  await recordServiceAudit(ctx.db, actor, service, 'chat.panel', input.channelId, { messageId }, ctx.clock());
  return { messageId };
}
