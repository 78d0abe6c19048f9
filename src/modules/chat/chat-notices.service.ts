import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { countNoticeEvent } from './chat.repository.ts';
import type { Fingerprint } from '../../lib/fingerprint.ts';
import type { Actor } from '../audit/actor.ts';
import { enqueueDiscordMessage } from './chat-outbox.ts';

/**
 * Notices to the staff log channel (contract §24.4): an embed posted through the durable outbox, queued in the
 * transaction of the change it reports (so a change rolled back reports nothing). Nothing is queued without
 * chatLogChannelId. The caller kicks the delivery job after its commit.
 */

interface Field {
  name: string;
  value: string;
  inline?: boolean;
}

const COLORS = { reset: 0x5865f2, ban: 0xed4245, unban: 0x57f287, whitelist: 0x57f287, mass: 0xfee75c, limit: 0xed4245 } as const;
export type NoticeKind = keyof typeof COLORS;

export async function queueNotice(
  db: Db,
  serviceId: string,
  kind: NoticeKind,
  title: string,
  fields: Field[],
  now: number,
): Promise<boolean> {
  const service = await db.selectFrom('services').select('chatLogChannelId').where('id', '=', serviceId).executeTakeFirst();
  const channel = service?.chatLogChannelId;
  if (!channel) return false;
  const embed = {
    title,
    color: COLORS[kind],
    fields: fields.map((f) => ({ ...f, value: f.value.slice(0, 1024) || '—' })),
    timestamp: new Date(now).toISOString(),
  };
  await enqueueDiscordMessage(
    db,
    serviceId,
    {
      method: 'POST',
      path: `/api/v10/channels/${channel}/messages`,
      json: { embeds: [embed], allowed_mentions: { parse: [] } },
      bot: true,
    },
    now,
    `notice:${kind}`,
  );
  return true;
}

/** Who did it, in the channel's words. */
export function whoDid(actor: Actor): string {
  if (actor.username) return `${actor.username}${actor.via === 'discord' ? ' (Discord)' : ''}`;
  switch (actor.kind) {
    case 'end-user':
      return 'the buyer';
    case 'service-key':
      return 'the API (service key)';
    case 'system':
      return 'Keyward';
    default:
      return actor.kind;
  }
}

const shortKey = (key: string) => `${key.slice(0, 6)}…`;

export const resetNotice = (db: Db, serviceId: string, key: string, actor: Actor, fingerprint: Fingerprint, forced: boolean, now: number) =>
  queueNotice(
    db,
    serviceId,
    'reset',
    forced ? 'HWID reset by staff' : 'HWID reset by a buyer',
    [
      { name: 'Key', value: shortKey(key), inline: true },
      { name: 'By', value: whoDid(actor), inline: true },
      {
        name: 'Fingerprint',
        value: `network ${fingerprint.network ?? 'unknown'} · executor ${fingerprint.executor ?? 'unknown'} · HWID ${fingerprint.oldHwid ?? 'none'} → ${fingerprint.newHwid ?? 'next run'}`,
      },
    ],
    now,
  );

export const banNotice = (
  db: Db,
  serviceId: string,
  user: string,
  actor: Actor,
  banned: boolean,
  keys: number,
  reason: string | null,
  now: number,
) =>
  queueNotice(
    db,
    serviceId,
    banned ? 'ban' : 'unban',
    banned ? 'User banned' : 'User unbanned',
    [
      { name: 'User', value: `<@${user}>`, inline: true },
      { name: 'Keys', value: String(keys), inline: true },
      { name: 'By', value: whoDid(actor), inline: true },
      ...(banned ? [{ name: 'Reason', value: reason ?? 'none given' }] : []),
    ],
    now,
  );

export const whitelistNotice = (db: Db, serviceId: string, user: string, actor: Actor, days: number | null, now: number) =>
  queueNotice(
    db,
    serviceId,
    'whitelist',
    'User whitelisted',
    [
      { name: 'User', value: `<@${user}>`, inline: true },
      { name: 'Length', value: days === null ? 'lifetime' : `${days} days`, inline: true },
      { name: 'By', value: whoDid(actor), inline: true },
    ],
    now,
  );

export const massNotice = (db: Db, serviceId: string, title: string, counts: Record<string, number>, actor: Actor, now: number) =>
  queueNotice(
    db,
    serviceId,
    'mass',
    title,
    [
      ...Object.entries(counts).map(([name, value]) => ({ name, value: String(value), inline: true })),
      { name: 'By', value: whoDid(actor), inline: true },
    ],
    now,
  );

export const sessionLimitNotice = (db: Db, serviceId: string, key: string, refusals: number, now: number) =>
  queueNotice(
    db,
    serviceId,
    'limit',
    'A key is refused for running on too many devices',
    [
      { name: 'Key', value: shortKey(key), inline: true },
      { name: 'Refusals this hour', value: String(refusals), inline: true },
    ],
    now,
  );

/** More refusals than this in an hour for one key is a notice (contract §24.4): a shared key, most likely. */
export const SESSION_LIMIT_NOTICE_AFTER = 3;

/**
 * Counts a SESSION_LIMIT refusal of `key` and, at the hour's 4th, queues the one notice for that hour (the counter's
 * row settles concurrent refusals: exactly one of them reads 4). Only services with a log channel count at all.
 */
export async function noteSessionLimitRefusal(ctx: AppContext, service: { id: string; chatLogChannelId: string | null }, key: string) {
  if (!service.chatLogChannelId) return;
  const now = ctx.clock();
  const queued = await ctx.db.transaction().execute(async (trx) => {
    const count = await countNoticeEvent(trx, service.id, `session-limit:${key}`, now);
    return count === SESSION_LIMIT_NOTICE_AFTER + 1 && (await sessionLimitNotice(trx, service.id, key, count, now));
  });
  if (queued) ctx.jobs.kick('webhook-delivery');
}
