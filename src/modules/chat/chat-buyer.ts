import type { AppContext } from '../../context.ts';
import { endUserActor } from '../audit/actor.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import { keysByChat, resetHwid, scriptLoadstrings } from '../keys/keys.service.ts';
import { grantRoleNow, syncChatRoles } from '../discord-role/discord-role.service.ts';
import { countLiveSessionsOfKey } from '../sessions/sessions.service.ts';
import type { ServiceRow } from '../services/services.service.ts';
import * as repo from './chat.repository.ts';

/**
 * What a buyer can do from Discord (contract §4 slash commands, §24.2 panel buttons): the same answer whether the
 * buyer typed /redeem or pressed Redeem key. Each answer is one plain sentence that says what to do next. The work is
 * the keys module's; the words are here.
 */

// A buyer is an end user; the request comes from Discord's servers, so no buyer address is known.
const BUYER = endUserActor(null);

const ts = (ms: number) => `<t:${Math.floor(ms / 1000)}:R>`;

export async function redeem(ctx: AppContext, service: ServiceRow, userId: string, key: string | null): Promise<string> {
  if (!key || key.length > 64 || !/^[\x21-\x7E]+$/.test(key))
    return 'Give your key: press **Redeem key** and paste it, or `/redeem key:<your key>`.';
  const linked = await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.linkKeyToChat(trx, service.id, key, userId))) return false;
    await recordServiceAudit(trx, BUYER, service.id, 'key.update', key, { chatId: userId }, ctx.clock());
    await syncChatRoles(trx, service.id, [userId], ctx.clock());
    return true;
  });
  if (linked) {
    ctx.jobs.kick('webhook-delivery');
    return 'Your key is now linked to your account. Next: press **Get script** (or `/script`) to get your script.';
  }
  if (await repo.keyExists(ctx.db, service.id, key))
    return 'This key is already linked to another user. If it is yours, ask staff for help.';
  return 'That key does not exist. Check it for typos and press **Redeem key** again.';
}

export async function resetOwnHwid(ctx: AppContext, service: ServiceRow, userId: string): Promise<string> {
  const keys = await repo.activeKeysOfChatUser(ctx.db, service.id, userId);
  if (keys.length === 0)
    return 'You have no activated key linked to your account. Press **Redeem key** (or `/redeem key:<your key>`) first, then run the script once.';
  const bound = keys
    .filter((k) => k.hwid !== null)
    .sort((a, b) => (b.lastUsedAt ?? b.activatedAt) - (a.lastUsedAt ?? a.activatedAt) || a.key.localeCompare(b.key));
  if (bound.length === 0) return 'Your key is not bound to a device, so there is nothing to reset. Just run the script on your device.';
  const outcome = await resetHwid(ctx, service, bound[0]!.key, BUYER);
  switch (outcome.kind) {
    case 'reset':
      return `Your HWID has been reset: run the script on your new device. The next reset is possible ${ts(Date.parse(outcome.result.nextResetAt))}.`;
    case 'cooldown':
      return `Your HWID was reset recently. Try again ${ts(ctx.clock() + outcome.retryAfter * 1000)}.`;
    case 'not-bound':
    case 'not-found':
      return 'Your key is not bound to a device, so there is nothing to reset. Just run the script on your device.';
  }
}

export async function scriptFor(ctx: AppContext, service: ServiceRow, userId: string): Promise<string> {
  const { usableKey } = await keysByChat(ctx, service.id, userId, BUYER);
  if (!usableKey) return 'You need a valid key linked to your account first: press **Redeem key** (or `/redeem key:<your key>`).';
  const scripts = await scriptLoadstrings(ctx, service.id);
  if (scripts.length === 0) return 'This service has no scripts available yet. Ask staff when it will be ready.';
  const blocks = scripts.map((s) => `**${s.name}**\n\`\`\`lua\nscript_key = "${usableKey}";\n${s.loadstring}\n\`\`\``);
  return `Paste this into your executor:\n${blocks.join('\n')}`;
}

/** Get role: granted now when the user holds a valid linked key (the outbox sends it at once), else why not. */
export async function roleFor(ctx: AppContext, service: ServiceRow, userId: string): Promise<string> {
  if (!service.chatRoleId || !service.chatBotTokenSealed) return 'This server has no buyer role set up. Ask staff.';
  const { keys, anyValid } = await keysByChat(ctx, service.id, userId, BUYER);
  if (keys.length === 0) return 'Your key is not linked yet: press **Redeem key** first.';
  const granted = await ctx.db.transaction().execute((trx) => grantRoleNow(trx, service.id, userId, ctx.clock()));
  if (granted) {
    ctx.jobs.kick('webhook-delivery');
    return 'Your buyer role is on its way: it appears within a few seconds.';
  }
  if (anyValid) return 'Your key becomes valid at its first run: run the script once, then press **Get role** again.';
  return 'None of your keys is valid now (expired, paused or banned), so there is no role. Press **My key** to see why.';
}

/** My key: each key of this service linked to the user, as the buyer needs it. */
export async function myKeys(ctx: AppContext, service: ServiceRow, userId: string): Promise<string> {
  const { keys } = await keysByChat(ctx, service.id, userId, BUYER);
  if (keys.length === 0) return 'You have no key linked to your account. Press **Redeem key** to link the one you bought.';
  const now = ctx.clock();
  const lines = await Promise.all(
    keys.map(async (k) => {
      // Time that starts at first use (an unused afterRedeem key, or one bound before its first run: §23) has no end yet.
      const expiry =
        k.durationDays !== null
          ? `runs ${k.durationDays} day(s) from its first run`
          : k.expiresAt === null
            ? 'never expires'
            : `expires ${ts(Date.parse(k.expiresAt))}`;
      if (k.type === 'generated') return `• \`${k.key}\`: not used yet (${expiry}). Run the script to start it.`;
      const cooldownHours = k.isPremium ? service.hwidResetCooldownPremiumHours : service.hwidResetCooldownFreeHours;
      const nextReset = k.hwidResetAt === null ? now : Date.parse(k.hwidResetAt) + cooldownHours * 3_600_000;
      const reset = nextReset > now ? `next HWID reset ${ts(nextReset)}` : 'HWID reset available now';
      const live = await countLiveSessionsOfKey(ctx, service.id, k.key);
      const ban = k.status === 'banned' && k.banReason ? ` (${k.banReason})` : '';
      return `• \`${k.key}\`: ${k.status}${ban}, ${expiry}; ${k.hwids.length} device(s) bound, ${reset}; ${k.executions} runs, ${live} running now.`;
    }),
  );
  return `Your keys:\n${lines.join('\n')}`;
}
