import type { AppContext } from '../../context.ts';
import { safeEqual } from '../../lib/secrets.ts';
import { AppError } from '../../errors.ts';
import { OutboundNetworkError, OutboundRefused, send, type OutboundPolicy, type OutboundResponse } from '../../net/outbound.ts';
import type { KeySystemProvider } from '../../db/schema.ts';

/**
 * Each ad provider's anti-bypass check, server to server through the SSRF-safe outbound client.
 * A check answers true (the provider vouches for the token) or false (it does not); a provider that
 * cannot be asked, or answers something we cannot read, is PROVIDER_UNAVAILABLE: never a free key.
 * The README's "Key system" section lists the request each check makes.
 */

const MAX_RESPONSE_BYTES = 16 * 1024;

export const PROVIDER_LABEL: Record<KeySystemProvider, string> = {
  none: 'None',
  workink: 'Work.ink',
  linkvertise: 'Linkvertise',
  lootlabs: 'Lootlabs',
};

/** The query parameter each provider appends to the return address (the page reads the first one present). */
// Both are names the request log redacts (contract §10); Lootlabs' one-time token travels as `token` too.
export const TOKEN_PARAMS = ['token', 'hash'] as const;

const DEFAULT_BASES: Record<Exclude<KeySystemProvider, 'none'>, string> = {
  workink: 'https://work.ink',
  linkvertise: 'https://publisher.linkvertise.com',
  lootlabs: 'https://creators.lootlabs.gg',
};

/**
 * Tests only: a stand-in for DNS on provider calls, so a test can make the provider's real name (work.ink…)
 * answer a private address and watch the SSRF-safe client refuse it. Production leaves it unset (system resolver).
 */
export const providerDns: { resolve?: OutboundPolicy['resolve'] } = {};

function baseOf(ctx: AppContext, provider: Exclude<KeySystemProvider, 'none'>): string {
  const { keySystem } = ctx.config;
  return { workink: keySystem.workinkApiUrl, linkvertise: keySystem.linkvertiseApiUrl, lootlabs: keySystem.lootlabsApiUrl }[provider];
}

function policyFor(ctx: AppContext, provider: Exclude<KeySystemProvider, 'none'>): OutboundPolicy {
  const base = new URL(baseOf(ctx, provider)).origin;
  const platform = new URL(DEFAULT_BASES[provider]).origin;
  return {
    platformOrigins: [platform],
    // An overridden base (tests) is the operator's explicit choice, like CHAT_WEBHOOK_ORIGINS.
    explicitOrigins: base === platform ? [] : [base],
    timeoutMs: ctx.config.keySystem.providerTimeoutMs,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    ...(providerDns.resolve ? { resolve: providerDns.resolve } : {}),
  };
}

export const unavailable = (provider: KeySystemProvider, why = 'could not be reached') =>
  new AppError('PROVIDER_UNAVAILABLE', `${PROVIDER_LABEL[provider]} ${why}; your progress is kept, try again in a moment`);

async function ask(
  ctx: AppContext,
  provider: Exclude<KeySystemProvider, 'none'>,
  url: string,
  method: 'GET' | 'POST',
): Promise<OutboundResponse> {
  try {
    return await send(url, policyFor(ctx, provider), {
      method,
      userAgent: 'Keyward (key system)',
      headers: { accept: 'application/json, text/plain' },
    });
  } catch (error) {
    // Refused by the SSRF rules (the provider's name answered a private address…): never sent, and said so.
    if (error instanceof OutboundRefused) throw unavailable(provider, 'cannot be called from this server (its address is not allowed)');
    if (error instanceof OutboundNetworkError) throw unavailable(provider);
    throw error;
  }
}

function json(provider: KeySystemProvider, response: OutboundResponse): Record<string, unknown> {
  if (response.status < 200 || response.status >= 300) throw unavailable(provider, `answered ${response.status}`);
  try {
    const parsed = JSON.parse(response.body) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // falls through to the refusal below
  }
  throw unavailable(provider, 'gave an answer that could not be read');
}

/** Work.ink's "token" setting: the seller's link ids, digits, comma-separated (`10345` or `10345,10346`). */
export const WORKINK_LINK_IDS = /^\d{1,12}(,\d{1,12}){0,19}$/;

/**
 * Work.ink: GET /_api/v2/token/isValid/<token>?deleteToken=1 → { valid, deleted, info: { linkId, … } }.
 * The check needs no key and vouches for a token of any link, a bypasser's own ad-free link included,
 * so the token must also come from one of the seller's links: `info.linkId` among the link ids of the
 * token setting. A valid answer without a link id, or a setting that is not link ids, is never a pass.
 */
async function verifyWorkink(ctx: AppContext, token: string, sellerToken: string): Promise<boolean> {
  // Settings saved before link ids were required: refuse rather than accept any Work.ink token.
  if (!WORKINK_LINK_IDS.test(sellerToken))
    throw unavailable('workink', 'is not set up on this service (the seller must enter their Work.ink link ids)');
  const url = `${baseOf(ctx, 'workink')}/_api/v2/token/isValid/${encodeURIComponent(token)}?deleteToken=1`;
  const body = json('workink', await ask(ctx, 'workink', url, 'GET'));
  if (typeof body.valid !== 'boolean') throw unavailable('workink', 'gave an answer that could not be read');
  if (!body.valid) return false;
  const linkId = (body.info as { linkId?: unknown } | undefined)?.linkId;
  if (typeof linkId !== 'number' && typeof linkId !== 'string') throw unavailable('workink', 'gave an answer that could not be read');
  return sellerToken.split(',').includes(String(linkId));
}

/** Linkvertise: POST /api/v1/anti_bypassing?token=<seller token>&hash=<hash> → TRUE | FALSE (plain text). */
async function verifyLinkvertise(ctx: AppContext, hash: string, sellerToken: string): Promise<boolean> {
  const url = `${baseOf(ctx, 'linkvertise')}/api/v1/anti_bypassing?token=${encodeURIComponent(sellerToken)}&hash=${encodeURIComponent(hash)}`;
  const response = await ask(ctx, 'linkvertise', url, 'POST');
  if (response.status < 200 || response.status >= 300) throw unavailable('linkvertise', `answered ${response.status}`);
  const verdict = response.body.trim().replace(/^"|"$/g, '').toUpperCase();
  if (verdict === 'TRUE') return true;
  if (verdict === 'FALSE') return false;
  // "Invalid token.": the seller's token is wrong; anything else: the API changed or is broken. Never the user's fault.
  if (/invalid token/i.test(verdict)) throw unavailable('linkvertise', 'refused the check (is the Linkvertise API token right?)');
  throw unavailable('linkvertise', 'gave an answer that could not be read');
}

/**
 * Lootlabs' Redirect API ("anti-bypass"): the destination of each checkpoint carries a one-time token we
 * made, and the destination is encrypted by Lootlabs' url_encryptor with the seller's API token (AES-256,
 * per creator), so only someone who went through the Lootlabs link learns it.
 * GET https://creators.lootlabs.gg/api/public/url_encryptor?destination_url=…&api_token=… → { message }.
 */
async function encryptLootlabsDestination(ctx: AppContext, destination: string, sellerToken: string): Promise<string> {
  const url = `${baseOf(ctx, 'lootlabs')}/api/public/url_encryptor?destination_url=${encodeURIComponent(destination)}&api_token=${encodeURIComponent(sellerToken)}`;
  const body = json('lootlabs', await ask(ctx, 'lootlabs', url, 'GET'));
  if (typeof body.message !== 'string' || body.message === '' || body.type === 'error') {
    throw unavailable('lootlabs', 'refused to prepare the link (is the Lootlabs API token right?)');
  }
  return body.message;
}

/** Work.ink: GET /_api/v2/override?destination=<url> → { sr }, the value of the link's `sr` parameter. */
async function workinkOverride(ctx: AppContext, destination: string): Promise<string> {
  const body = json(
    'workink',
    await ask(ctx, 'workink', `${baseOf(ctx, 'workink')}/_api/v2/override?destination=${encodeURIComponent(destination)}`, 'GET'),
  );
  if (typeof body.sr !== 'string' || body.sr === '') throw unavailable('workink', 'gave an answer that could not be read');
  return body.sr;
}

/** Where the user goes for a checkpoint: the seller's link, carrying the return address as the provider expects it. */
export async function checkpointLink(
  ctx: AppContext,
  provider: KeySystemProvider,
  link: string | undefined,
  returnUrl: string,
  sellerToken: string | null,
  lootlabsToken: string,
): Promise<string> {
  if (provider === 'none' || !link) return returnUrl;
  const url = new URL(link);
  if (provider === 'linkvertise' && /\/dynamic\/?$/.test(url.pathname)) {
    // Linkvertise's dynamic links take the destination base64-encoded in `r`.
    url.searchParams.set('r', Buffer.from(returnUrl).toString('base64'));
  } else if (provider === 'workink') {
    // Work.ink's link override sends this user to our return address with its token in {TOKEN}. If it
    // cannot be had, the link still works through the destination set in Work.ink's dashboard (README).
    const sr = await workinkOverride(ctx, `${returnUrl}&token={TOKEN}`).catch(() => null);
    if (sr) url.searchParams.set('sr', sr);
  } else if (provider === 'lootlabs') {
    const destination = `${returnUrl}&token=${lootlabsToken}`;
    url.searchParams.set('data', await encryptLootlabsDestination(ctx, destination, sellerToken ?? ''));
  }
  // A static Linkvertise link sends the user to the destination set in Linkvertise's dashboard (the
  // return address, see README); the browser's cookie names the session there.
  return url.href;
}

/** Whether the provider vouches for this token. Throws PROVIDER_UNAVAILABLE when it cannot say. */
export async function providerVouches(
  ctx: AppContext,
  provider: Exclude<KeySystemProvider, 'none'>,
  token: string,
  sellerToken: string,
  expectedDigest: string | null,
  digestOf: (token: string) => string,
): Promise<boolean> {
  switch (provider) {
    case 'workink':
      return verifyWorkink(ctx, token, sellerToken);
    case 'linkvertise':
      return verifyLinkvertise(ctx, token, sellerToken);
    case 'lootlabs':
      return expectedDigest !== null && safeEqual(digestOf(token), expectedDigest);
  }
}
