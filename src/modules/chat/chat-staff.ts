import type { AppContext } from '../../context.ts';
import { DAY_MS } from '../../lib/time.ts';
import { counted } from '../../lib/plain-words.ts';
import type { Actor } from '../audit/actor.ts';
import { syncChatRoles } from '../discord-role/discord-role.service.ts';
import {
  compensate,
  editActiveKey,
  editGeneratedKey,
  generateKeys,
  keysByChat,
  resetHwid,
  scriptLoadstrings,
} from '../keys/keys.service.ts';
import { countLiveSessionsOfKey } from '../sessions/sessions.service.ts';
import type { ServiceAction, ServiceRow } from '../services/services.service.ts';
import { banNotice, massNotice, whitelistNotice } from './chat-notices.service.ts';

/**
 * The staff commands (contract §24.3), each a translation: Discord's options in, the same domain call a dashboard
 * click makes (same actor, same role table, same audit entry, same events), the answer out in words. The actions are
 * §17's, read by chat-team.ts through the role table: /blacklist, /unblacklist and /force-resethwid act on everything
 * of one buyer at once, which is list work (lists.manage, like the HWID blacklist) besides key support.
 */

export interface StaffInput {
  user: string | null;
  days: number | null;
  note: string | null;
  reason: string | null;
  role: string | null;
}

export interface StaffCommand {
  actions: readonly ServiceAction[];
  /** Absent: always answered "thinking…" and run by the delivery job (chat-tasks.ts: it reads Discord, which may be slow). */
  run?(ctx: AppContext, service: ServiceRow, actor: Actor, input: StaffInput): Promise<string>;
}

const ts = (iso: string) => `<t:${Math.floor(Date.parse(iso) / 1000)}:R>`;
const needUser = (command: string) => `Name the user: \`/${command} user:@someone\`.`;
const daysText = (days: number | null) => (days === null ? 'lifetime' : `${days}-day`);

/** The buyer snippet a seller passes on: the key set before each loader. */
export async function buyerSnippet(ctx: AppContext, serviceId: string, key: string): Promise<string> {
  const scripts = await scriptLoadstrings(ctx, serviceId);
  if (scripts.length === 0) return 'The service has no script yet; send the key alone.';
  return scripts.map((s) => `**${s.name}**\n\`\`\`lua\nscript_key = "${key}";\n${s.loadstring}\n\`\`\``).join('\n');
}

/** One key for one user, linked, with the role (§24.3 /whitelist); shared with /mass-whitelist. */
export async function whitelistUser(
  ctx: AppContext,
  service: ServiceRow,
  actor: Actor,
  user: string,
  days: number | null,
  note: string | null,
) {
  const [row] = await generateKeys(
    ctx,
    service.id,
    {
      expirationType: days === null ? 'lifetime' : 'byDays',
      ...(days !== null && { days }),
      ...(note && { note }),
      chatId: user,
      count: 1,
    },
    actor,
  );
  await ctx.db.transaction().execute((trx) => syncChatRoles(trx, service.id, [user], ctx.clock()));
  return row!.key;
}

const whitelist: StaffCommand = {
  actions: ['keys.generate'],
  async run(ctx, service, actor, input) {
    if (!input.user) return needUser('whitelist');
    const key = await whitelistUser(ctx, service, actor, input.user, input.days, input.note);
    await whitelistNotice(ctx.db, service.id, input.user, actor, input.days, ctx.clock());
    ctx.jobs.kick('webhook-delivery');
    const role = service.chatRoleId && service.chatBotTokenSealed ? ' and their buyer role is on its way' : '';
    return `Made a ${daysText(input.days)} key for <@${input.user}>: \`${key}\`. It is linked to them${role}. Pass this on:\n${await buyerSnippet(ctx, service.id, key)}`;
  },
};

async function setBan(ctx: AppContext, service: ServiceRow, actor: Actor, input: StaffInput, banned: boolean): Promise<string> {
  const command = banned ? 'blacklist' : 'unblacklist';
  if (!input.user) return needUser(command);
  const { keys } = await keysByChat(ctx, service.id, input.user, actor);
  const targets = banned ? keys : keys.filter((k) => k.status === 'banned');
  if (targets.length === 0) return banned ? `<@${input.user}> has no key of this service.` : `<@${input.user}> has no banned key.`;
  const edit = banned
    ? {
        status: 'banned' as const,
        banReason: input.reason,
        ...(input.days !== null && { banExpiresAt: ctx.clock() + input.days * DAY_MS }),
      }
    : { status: 'active' as const };
  for (const k of targets) {
    if (k.type === 'active') await editActiveKey(ctx, service.id, k.key, edit, actor);
    else await editGeneratedKey(ctx, service.id, k.key, edit, actor);
  }
  await banNotice(ctx.db, service.id, input.user, actor, banned, targets.length, input.reason, ctx.clock());
  ctx.jobs.kick('webhook-delivery');
  if (!banned) return `Lifted the ban on ${counted(targets.length, 'key')} of <@${input.user}>: they work again.`;
  const until = input.days === null ? 'for good' : `for ${counted(input.days, 'day')}`;
  return `Banned ${counted(targets.length, 'key')} of <@${input.user}> ${until}${input.reason ? ` (${input.reason})` : ''}. Undo with \`/unblacklist\`.`;
}

const blacklist: StaffCommand = { actions: ['keys.support', 'lists.manage'], run: (ctx, s, a, i) => setBan(ctx, s, a, i, true) };
const unblacklist: StaffCommand = { actions: ['keys.support', 'lists.manage'], run: (ctx, s, a, i) => setBan(ctx, s, a, i, false) };

const userInfo: StaffCommand = {
  actions: ['keys.read'],
  async run(ctx, service, actor, input) {
    if (!input.user) return needUser('user-info');
    // A reseller sees only the keys it made (keysByChat scopes by the actor).
    const { keys } = await keysByChat(ctx, service.id, input.user, actor);
    if (keys.length === 0) return `<@${input.user}> has no key of this service${actor.role === 'reseller' ? ' that you made' : ''}.`;
    const lines = await Promise.all(
      keys.map(async (k) => {
        const expiry = k.expiresAt === null ? 'no expiry' : `expires ${ts(k.expiresAt)}`;
        if (k.type === 'generated') return `• \`${k.key}\`: ${k.status}, not used yet, ${expiry}`;
        const ban =
          k.status === 'banned' ? ` (reason: ${k.banReason ?? 'none'}${k.banExpiresAt ? `, ends ${ts(k.banExpiresAt)}` : ''})` : '';
        const seen = k.lastUsedAt ? `last seen ${ts(k.lastUsedAt)}` : 'never run';
        const live = await countLiveSessionsOfKey(ctx, service.id, k.key);
        const hwids = k.hwids.length === 0 ? 'no HWID' : k.hwids.map((h) => `\`${h.slice(0, 12)}\``).join(', ');
        return `• \`${k.key}\`: ${k.status}${ban}, ${expiry}; HWIDs ${hwids}; ${k.executions} runs, ${seen}, ${live} running now`;
      }),
    );
    return `Keys of <@${input.user}>:\n${lines.join('\n')}`;
  },
};

const forceReset: StaffCommand = {
  actions: ['keys.support', 'lists.manage'],
  async run(ctx, service, actor, input) {
    if (!input.user) return needUser('force-resethwid');
    const { keys } = await keysByChat(ctx, service.id, input.user, actor);
    let reset = 0;
    for (const k of keys) {
      if (k.type !== 'active' || k.hwids.length === 0) continue;
      if ((await resetHwid(ctx, service, k.key, actor, { force: true })).kind === 'reset') reset += 1;
    }
    if (reset === 0) return `<@${input.user}> has no key bound to a device; nothing to reset.`;
    return `Reset the HWID of ${counted(reset, 'key')} of <@${input.user}>: they bind to the next device they run on.`;
  },
};

const compensateAll: StaffCommand = {
  actions: ['keys.manage'],
  async run(ctx, service, actor, input) {
    if (input.days === null || input.days < 1 || input.days > 365) return 'Give the days to add, 1 to 365: `/compensate days:3`.';
    const result = await compensate(ctx, service.id, input.days, actor);
    const total = result.activeKeysUpdated + result.generatedKeysUpdated;
    await massNotice(ctx.db, service.id, `Compensated ${counted(input.days, 'day')}`, { 'Keys extended': total }, actor, ctx.clock());
    ctx.jobs.kick('webhook-delivery');
    return `Added ${counted(input.days, 'day')} to ${counted(total, 'key')} with an expiry (lifetime keys need none).`;
  },
};

/** Run by the delivery job (chat-tasks.ts). */
const massWhitelist: StaffCommand = { actions: ['keys.generate', 'keys.manage'] };

export const STAFF_COMMANDS: Readonly<Record<string, StaffCommand>> = {
  whitelist,
  blacklist,
  unblacklist,
  'user-info': userInfo,
  'force-resethwid': forceReset,
  compensate: compensateAll,
  'mass-whitelist': massWhitelist,
};
