import type { AppContext } from '../../context.ts';
import { isUniqueViolation, type Db } from '../../db/database.ts';
import { AppError, invalid } from '../../errors.ts';
import { consumeCaptcha } from '../auth/auth.service.ts';
import { newId, randomAlphanumeric } from '../../lib/random.ts';
import { digest, safeEqual } from '../../lib/secrets.ts';
import { addressKey } from '../../lib/ip.ts';
import { DAY_MS, HOUR_MS, iso } from '../../lib/time.ts';
import { insertGeneratedKeys, newLicenseKey } from '../keys/keys.service.ts';
import type { ServiceRow } from '../services/services.service.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { emitEvent, keyEventData } from '../events/events.service.ts';
import { checkpointLink, providerVouches, WORKINK_LINK_IDS } from './key-system.providers.ts';
import * as repo from './key-system.repository.ts';
import type { KeySystemProvider } from '../../db/schema.ts';

export const SESSION_TTL_MS = HOUR_MS;
/** Spent tokens are remembered far longer than any provider keeps one valid. */
export const SPENT_TOKEN_TTL_MS = 30 * DAY_MS;
export const KEY_NOTE = 'key-system';
/**
 * The cookie that binds a session to its browser, one per service (`kw_keysystem_<service id>`), so a
 * second service's get-key page in the same browser never overwrites the first one's session.
 */
export const sessionCookieName = (service: Pick<ServiceRow, 'id'>) => `kw_keysystem_${service.id}`;

export interface KeySystemSettings {
  enabled: boolean;
  checkpoints: number;
  keyHours: number;
  minSecondsPerCheckpoint: number;
  provider: KeySystemProvider;
  links: string[];
  providerTokenSealed: string | null;
  pageTitle: string | null;
  accentColor: string | null;
  maxKeysPerAddressPerDay: number;
}

const DEFAULTS: KeySystemSettings = {
  enabled: false,
  checkpoints: 1,
  keyHours: 24,
  minSecondsPerCheckpoint: 15,
  provider: 'none',
  links: [],
  providerTokenSealed: null,
  pageTitle: null,
  accentColor: null,
  maxKeysPerAddressPerDay: 3,
};

function fromRow(row: repo.SettingsRow | undefined): KeySystemSettings {
  if (!row) return DEFAULTS;
  return {
    enabled: row.enabled === 1,
    checkpoints: row.checkpoints,
    keyHours: row.keyHours,
    minSecondsPerCheckpoint: row.minSecondsPerCheckpoint,
    provider: row.provider,
    links: JSON.parse(row.links) as string[],
    providerTokenSealed: row.providerTokenSealed,
    pageTitle: row.pageTitle,
    accentColor: row.accentColor,
    maxKeysPerAddressPerDay: row.maxKeysPerAddressPerDay,
  };
}

export const loadSettings = async (ctx: AppContext, serviceId: string) => fromRow(await repo.findSettings(ctx.db, serviceId));

export const pageUrl = (ctx: AppContext, service: Pick<ServiceRow, 'identifier'>) => `${ctx.config.baseUrl}/key/${service.identifier}`;

/** The get-key page of a service for the Lua library's api.get_key_link(); null while the key system is off. */
export async function keyLinkOf(ctx: AppContext, service: ServiceRow): Promise<string | null> {
  return (await loadSettings(ctx, service.id)).enabled ? pageUrl(ctx, service) : null;
}

export function settingsView(ctx: AppContext, service: ServiceRow, s: KeySystemSettings) {
  return {
    enabled: s.enabled,
    checkpoints: s.checkpoints,
    keyHours: s.keyHours,
    minSecondsPerCheckpoint: s.minSecondsPerCheckpoint,
    provider: s.provider,
    links: s.links,
    providerToken: s.providerTokenSealed ? '****' : null,
    pageTitle: s.pageTitle,
    accentColor: s.accentColor,
    maxKeysPerAddressPerDay: s.maxKeysPerAddressPerDay,
    pageUrl: pageUrl(ctx, service),
  };
}

export interface SettingsPatch {
  enabled?: boolean;
  checkpoints?: number;
  keyHours?: number;
  minSecondsPerCheckpoint?: number;
  provider?: KeySystemProvider;
  links?: string[];
  providerToken?: string | null;
  pageTitle?: string | null;
  accentColor?: string | null;
  maxKeysPerAddressPerDay?: number;
}

/** What changed, for the audit log: field names and new values, never the provider token itself. */
export function changedFields(patch: SettingsPatch): Record<string, unknown> {
  const { providerToken, ...rest } = patch;
  return providerToken === undefined ? rest : { ...rest, providerToken: providerToken === null ? null : '****' };
}

export async function updateSettings(ctx: AppContext, service: ServiceRow, patch: SettingsPatch, actor: Actor) {
  const current = await loadSettings(ctx, service.id);
  const { providerToken, ...plain } = patch;
  const next: KeySystemSettings = { ...current, ...plain };
  if (typeof next.accentColor === 'string') next.accentColor = next.accentColor.toLowerCase();
  if (providerToken !== undefined) next.providerTokenSealed = providerToken === null ? null : ctx.sealer.seal(providerToken);
  for (const [i, link] of next.links.entries()) {
    let url: URL | null = null;
    try {
      url = new URL(link);
    } catch {
      url = null;
    }
    if (!url || url.protocol !== 'https:' || url.username || url.password) throw invalid('links', `links[${i}] must be an https URL`);
  }
  // The contract's rule: an ad provider needs its links and the seller's token; "none" needs neither.
  if (next.provider !== 'none') {
    const name = next.provider;
    if (next.links.length === 0) throw invalid('links', `links are required with provider ${name}: one https link per checkpoint`);
    if (next.links.length !== next.checkpoints) {
      throw invalid('links', `links must hold one https link per checkpoint (${next.checkpoints}), got ${next.links.length}`);
    }
    if (!next.providerTokenSealed) throw invalid('providerToken', `providerToken is required with provider ${name}`);
    // Work.ink's check needs no key, so its "token" is the seller's link ids: a token must come from one of them.
    if (name === 'workink' && !WORKINK_LINK_IDS.test(ctx.sealer.open(next.providerTokenSealed))) {
      throw invalid(
        'providerToken',
        'providerToken must be your Work.ink link ids with provider workink (digits, comma-separated, e.g. 10345,10346)',
      );
    }
  }
  const now = ctx.clock();
  const row = {
    serviceId: service.id,
    enabled: next.enabled ? (1 as const) : (0 as const),
    checkpoints: next.checkpoints,
    keyHours: next.keyHours,
    minSecondsPerCheckpoint: next.minSecondsPerCheckpoint,
    provider: next.provider,
    links: JSON.stringify(next.links),
    providerTokenSealed: next.providerTokenSealed,
    pageTitle: next.pageTitle,
    accentColor: next.accentColor,
    maxKeysPerAddressPerDay: next.maxKeysPerAddressPerDay,
    updatedAt: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await repo.saveSettings(trx, row);
    await recordServiceAudit(trx, actor, service, 'keySystem.update', null, changedFields(patch), now);
  });
  return settingsView(ctx, service, next);
}

// ---- sessions ----

const failed = (reason: 'too-fast' | 'token-invalid' | 'token-reused', message: string, retryAfter?: number) =>
  new AppError('CHECKPOINT_FAILED', message, retryAfter === undefined ? { reason } : { reason, retryAfter });

const sessionGone = () => new AppError('NOT_FOUND', 'Key-system session not found or expired; start again from the get-key page');

const disabled = () => new AppError('KEY_SYSTEM_DISABLED', 'The key system of this service is turned off');

/** The cookie that binds a session to the browser that started it: `<sessionId>.<secret>`. */
export function parseSessionCookie(value: string | undefined): { id: string; secret: string } | null {
  const match = value ? /^([0-9a-f-]{36})\.([A-Za-z0-9]{32})$/.exec(value) : null;
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

const returnUrl = (ctx: AppContext, service: ServiceRow, sessionId: string) => `${pageUrl(ctx, service)}/return?session=${sessionId}`;

/** Over the per-address limit: when the oldest key in the last day ages out. `db` may be a transaction. */
async function nextKeyAllowedAt(db: Db, serviceId: string, address: string, limit: number, now: number): Promise<number | null> {
  if (limit === 0) return null;
  const grants = await repo.grantsSince(db, serviceId, addressKey(address), now - DAY_MS);
  return grants.length < limit ? null : grants[grants.length - limit]!.issuedAt + DAY_MS;
}

/**
 * Refuses when the address has earned its keys for the day. Outside a transaction this is the early, friendly answer
 * (at the start, before the last checkpoint); the decision itself is taken again inside the key's transaction, under
 * lockGrants, so that sessions finishing at once cannot all pass on the same count.
 */
async function enforceLimit(db: Db, serviceId: string, address: string, settings: KeySystemSettings, now: number) {
  const at = await nextKeyAllowedAt(db, serviceId, address, settings.maxKeysPerAddressPerDay, now);
  if (at === null) return;
  // The page shows nextKeyAt in the user's own time zone; API callers get the same instant in the sentence.
  throw new AppError('KEY_SYSTEM_LIMIT', `You have earned the most keys allowed today; the next key can be earned at ${iso(at)}`, {
    nextKeyAt: iso(at)!,
    retryAfter: Math.max(1, Math.ceil((at - now) / 1000)),
  });
}

function sellerToken(ctx: AppContext, settings: KeySystemSettings): string | null {
  return settings.providerTokenSealed ? ctx.sealer.open(settings.providerTokenSealed) : null;
}

/** The link for checkpoint `index` and, for Lootlabs, the digest of the one-time token hidden in it. */
async function linkFor(ctx: AppContext, service: ServiceRow, settings: KeySystemSettings, sessionId: string, index: number) {
  const oneTime = settings.provider === 'lootlabs' ? randomAlphanumeric(32) : null;
  const url = await checkpointLink(
    ctx,
    settings.provider,
    settings.links[index],
    returnUrl(ctx, service, sessionId),
    sellerToken(ctx, settings),
    oneTime ?? '',
  );
  return { url, expectedTokenDigest: oneTime ? digest(oneTime) : null };
}

export async function startSession(ctx: AppContext, service: ServiceRow, input: { captcha: string; address: string }) {
  const settings = await loadSettings(ctx, service.id);
  if (!settings.enabled) throw disabled();
  await consumeCaptcha(ctx, input.captcha);
  const now = ctx.clock();
  await enforceLimit(ctx.db, service.id, input.address, settings, now);
  const id = newId();
  const secret = randomAlphanumeric(32);
  const link = await linkFor(ctx, service, settings, id, 0);
  await repo.insertSession(ctx.db, {
    id,
    serviceId: service.id,
    browserDigest: digest(secret),
    address: input.address,
    checkpoint: 0,
    checkpoints: settings.checkpoints,
    checkpointStartedAt: now,
    expectedTokenDigest: link.expectedTokenDigest,
    nextUrl: link.url,
    key: null,
    keyExpiresAt: null,
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  });
  return {
    cookie: `${id}.${secret}`,
    data: { sessionId: id, checkpoint: 0, checkpoints: settings.checkpoints, next: link.url },
  };
}

/** The session if it exists, is alive and belongs to this browser; anything else looks like "not found". */
export async function boundSession(ctx: AppContext, service: ServiceRow, id: string, cookie: string | undefined) {
  const presented = parseSessionCookie(cookie);
  if (!presented || presented.id !== id) throw sessionGone();
  const row = await repo.findSession(ctx.db, service.id, id);
  if (!row || row.expiresAt <= ctx.clock() || !safeEqual(row.browserDigest, digest(presented.secret))) throw sessionGone();
  return row;
}

export function sessionView(row: repo.SessionRow) {
  return {
    checkpoint: row.checkpoint,
    checkpoints: row.checkpoints,
    next: row.key ? null : row.nextUrl,
    key: row.key ? { key: row.key, expiresAt: iso(row.keyExpiresAt)! } : null,
  };
}

export async function sessionState(ctx: AppContext, service: ServiceRow, id: string, cookie: string | undefined) {
  return sessionView(await boundSession(ctx, service, id, cookie));
}

export async function passCheckpoint(
  ctx: AppContext,
  service: ServiceRow,
  id: string,
  cookie: string | undefined,
  token: string | undefined,
) {
  const session = await boundSession(ctx, service, id, cookie);
  // Asking again for a finished session answers the same key.
  if (session.key) return sessionView(session);
  const settings = await loadSettings(ctx, service.id);
  if (!settings.enabled) throw disabled();
  const now = ctx.clock();
  const readyAt = session.checkpointStartedAt + settings.minSecondsPerCheckpoint * 1000;
  if (now < readyAt) {
    const wait = Math.ceil((readyAt - now) / 1000);
    throw failed('too-fast', `This checkpoint was passed too quickly; wait ${wait} more seconds and try again`, wait);
  }
  const last = session.checkpoint + 1 >= session.checkpoints;
  if (last) await enforceLimit(ctx.db, service.id, session.address, settings, now);

  if (settings.provider !== 'none') {
    if (!token) throw failed('token-invalid', 'The checkpoint carries no token; complete it through the link');
    const provider = settings.provider;
    const tokenDigest = digest(token);
    // Claim first: of two instances given one token, exactly one gets past this line.
    if (!(await repo.spendToken(ctx.db, provider, tokenDigest, now + SPENT_TOKEN_TTL_MS, isUniqueViolation))) {
      throw failed('token-reused', 'This checkpoint token was already used; complete the checkpoint again');
    }
    let vouched: boolean;
    try {
      vouched = await providerVouches(ctx, provider, token, sellerToken(ctx, settings) ?? '', session.expectedTokenDigest, digest);
    } catch (error) {
      await repo.releaseToken(ctx.db, provider, tokenDigest);
      throw error;
    }
    if (!vouched) throw failed('token-invalid', 'The ad provider did not confirm this checkpoint; complete it through the link');
  }

  if (!last) {
    let link;
    try {
      link = await linkFor(ctx, service, settings, session.id, session.checkpoint + 1);
    } catch (error) {
      // Lootlabs could not prepare the next link: the checkpoint stands unpassed and its token usable again.
      if (token && settings.provider !== 'none') await repo.releaseToken(ctx.db, settings.provider, digest(token));
      throw error;
    }
    await repo.advanceSession(ctx.db, session.id, session.checkpoint, {
      checkpointStartedAt: now,
      expectedTokenDigest: link.expectedTokenDigest,
      nextUrl: link.url,
    });
  } else {
    await issueKey(ctx, service, settings, session, now);
  }
  return sessionView((await repo.findSession(ctx.db, service.id, session.id))!);
}

/** The key: a generated key of the service, byDate, keyHours from now, note "key-system"; once per session. */
async function issueKey(ctx: AppContext, service: ServiceRow, settings: KeySystemSettings, session: repo.SessionRow, now: number) {
  const key = newLicenseKey();
  const expiresAt = now + settings.keyHours * HOUR_MS;
  let issued = false;
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      const won = await repo.advanceSession(trx, session.id, session.checkpoint, {
        checkpointStartedAt: now,
        key,
        keyExpiresAt: expiresAt,
        nextUrl: null,
      });
      if (!won) throw new LostRace();
      if (settings.maxKeysPerAddressPerDay > 0) {
        await repo.lockGrants(trx, service.id);
        await enforceLimit(trx, service.id, session.address, settings, now);
      }
      await insertGeneratedKeys(trx, [
        {
          key,
          serviceId: service.id,
          note: KEY_NOTE,
          isPremium: 0,
          noHwidValidation: 0,
          status: 'active',
          expiresAt,
          chatId: null,
          expirationType: 'byDate',
          createdAt: now,
        },
      ]);
      await repo.insertGrant(trx, { serviceId: service.id, address: addressKey(session.address), key, issuedAt: now });
      // Contract §7.6: the key system acts for an end user.
      const actor: Actor = { kind: 'end-user', accountId: null, ip: session.address };
      await recordServiceAudit(trx, actor, service, 'key.generate', key, { count: 1, source: 'key-system' }, now);
      await emitEvent(trx, service.id, 'keySystem.keyIssued', keyEventData(service.id, { key, hwid: null, chatId: null, expiresAt }), now);
      issued = true;
    })
    .catch((error: unknown) => {
      // Another request finished this session first; its key is the answer.
      if (!(error instanceof LostRace)) throw error;
    });
  if (issued) ctx.analytics.countKeySystemKey(service.id);
}

class LostRace extends Error {}

/** Deletes expired sessions and spent tokens, and grants older than the per-address window. */
export async function sweepKeySystem(ctx: AppContext) {
  const now = ctx.clock();
  return repo.sweep(ctx.db, now, now - DAY_MS);
}

export async function findServiceSession(ctx: AppContext, service: ServiceRow, cookie: string | undefined) {
  const presented = parseSessionCookie(cookie);
  if (!presented) return null;
  try {
    return await boundSession(ctx, service, presented.id, cookie);
  } catch {
    return null;
  }
}
