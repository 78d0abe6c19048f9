import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';

/** One finding of `keyward doctor` (doctor.ts prints it). */
export type AddFinding = (level: 'ok' | 'warn' | 'error', message: string) => void;

/**
 * Redis (contract §22): the server starts and serves without it, but limits and caches are then kept per instance, so
 * a REDIS_URL that does not answer is an error to fix. The URL's password never reaches the output.
 */
export async function checkRedis(config: Config, add: AddFinding): Promise<void> {
  if (!config.redisUrl) return;
  let where = 'REDIS_URL';
  try {
    const url = new URL(config.redisUrl);
    where = `REDIS_URL (${url.hostname}:${url.port || '6379'})`;
  } catch {
    // ioredis reports an unreadable URL below.
  }
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The first failure says why (ECONNREFUSED, ENOTFOUND …); connect() itself only says the connection closed.
  let firstError: (Error & { code?: string }) | null = null;
  redis.on('error', (error: Error) => {
    firstError ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
    add('ok', `${where} answers: rate limits and caches are shared by every instance`);
    const policy = await evictionPolicy(redis);
    if (policy)
      add(
        'warn',
        `${where} may evict keys when full (maxmemory-policy ${policy}): live sessions and rate-limit counts are kept there; set maxmemory-policy noeviction (docs/operations.md)`,
      );
  } catch (error) {
    const cause = firstError ?? (error as Error & { code?: string });
    const code = cause.code ?? cause.message;
    add('error', `${where} does not answer (${code}): the server serves anyway, but rate limits and caches are per instance until it does`);
  } finally {
    redis.disconnect();
  }
}

/**
 * The policy of a Redis that may drop keys when its memory is full (null where it never does, or where CONFIG is not
 * allowed, as on some hosted Redis): a dropped live session would still be answered from an instance's memory.
 */
async function evictionPolicy(redis: Redis): Promise<string | null> {
  try {
    const [, policy] = (await redis.config('GET', 'maxmemory-policy')) as string[];
    const [, maxmemory] = (await redis.config('GET', 'maxmemory')) as string[];
    return policy && policy !== 'noeviction' && Number(maxmemory) > 0 ? policy : null;
  } catch {
    return null;
  }
}

/**
 * The Discord buyer role of one service (contract §22, §12.3): for a service that set any part of it, whether the bot
 * token, the role id and a bound server are all there, and whether Discord refused the last grant.
 */
export async function checkDiscordRole(db: Db, serviceId: string, label: string, add: AddFinding): Promise<void> {
  const settings = await db
    .selectFrom('services')
    .select(['chatBotTokenSealed', 'chatRoleId', 'chatGuildId'])
    .where('id', '=', serviceId)
    .executeTakeFirst();
  if (!settings || (!settings.chatBotTokenSealed && !settings.chatRoleId)) return;
  const missing = [
    ...(settings.chatBotTokenSealed ? [] : ['the bot token']),
    ...(settings.chatRoleId ? [] : ['the role id']),
    ...(settings.chatGuildId ? [] : ['a Discord server bound to the service']),
  ];
  if (missing.length > 0) {
    add('error', `${label}: the Discord buyer role is half set up: it lacks ${missing.join(', ')}, so no role is given`);
    return;
  }
  const refused = await db
    .selectFrom('discordRoleMembers')
    .select(['lastError'])
    .where('serviceId', '=', serviceId)
    .where('confirmedAt', 'is', null)
    .where('refusals', '>', 0)
    .orderBy('retryAt', 'desc')
    .execute();
  const last = await db
    .selectFrom('webhookOutbox')
    .select(['status', 'lastError', 'payload'])
    .where('serviceId', '=', serviceId)
    .where('kind', '=', 'discordRole')
    .where('status', 'in', ['delivered', 'failed'])
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
  const lastGrant = last.find((row) => (JSON.parse(row.payload) as { method?: string }).method === 'PUT');
  if (refused.length > 0) {
    add(
      'error',
      `${label}: Discord refused the buyer role for ${refused.length} buyer(s) (${refused[0]!.lastError ?? 'no reason given'}); fix it in Discord, then press Save Discord role`,
    );
  } else if (lastGrant?.status === 'failed') {
    add('error', `${label}: the last grant of the Discord buyer role failed (${lastGrant.lastError ?? 'no reason given'})`);
  } else add('ok', `${label}: the Discord buyer role is set up (bot token, role id, server)`);
}
