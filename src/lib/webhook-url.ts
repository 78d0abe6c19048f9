import type { Sealer } from './secrets.ts';

export const CHAT_WEBHOOK_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);
const WEBHOOK_PATH = /^\/api(\/v\d{1,2})?\/webhooks\/(\d{17,20})\/([A-Za-z0-9_-]{1,200})$/;

/**
 * A chat-platform webhook: https on one of the platform's hosts, or an origin the operator listed in
 * CHAT_WEBHOOK_ORIGINS (for tests). No userinfo, port, query or fragment tricks: the URL is rebuilt
 * from the parsed parts, so what is stored is exactly what was checked.
 */
export function parseChatWebhookUrl(raw: string, extraOrigins: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username || url.password || url.search || url.hash) return null;
  const official = url.protocol === 'https:' && url.port === '' && CHAT_WEBHOOK_HOSTS.has(url.hostname);
  if (!official && !extraOrigins.includes(url.origin)) return null;
  if (!WEBHOOK_PATH.test(url.pathname)) return null;
  return `${url.origin}${url.pathname}`;
}

/** Shows where a webhook points without its secret token. */
export function maskWebhookUrl(url: string | null): string | null {
  if (!url) return null;
  return url.replace(/(\/webhooks\/\d+\/).+$/, '$1****');
}

// A stored webhook URL keeps its token sealed (contract §10: it lets anyone post as the seller's bot), the rest
// in clear, so masking and the outbox record need no key. `~` never occurs in a token, so the forms cannot mix.
const SEALED_TOKEN = /^(.*\/webhooks\/\d+\/)~(.+)$/;
const PLAIN_TOKEN = /^(.*\/webhooks\/\d+\/)([A-Za-z0-9_-]+)$/;

/** The form a checked webhook URL (parseChatWebhookUrl) is stored in. */
export function sealWebhookUrl(sealer: Sealer, url: string): string {
  const match = PLAIN_TOKEN.exec(url);
  return match ? `${match[1]}~${sealer.seal(match[2]!)}` : url;
}

/** The URL to send to. Rows written before tokens were sealed hold them in clear and are read as they are. */
export function openWebhookUrl(sealer: Sealer, stored: string): string;
export function openWebhookUrl(sealer: Sealer, stored: string | null): string | null;
export function openWebhookUrl(sealer: Sealer, stored: string | null): string | null {
  if (!stored) return stored;
  const match = SEALED_TOKEN.exec(stored);
  return match ? `${match[1]}${sealer.open(match[2]!)}` : stored;
}

/** Whether a stored webhook URL still holds its token in clear (the maintenance job seals those). */
export const hasPlainToken = (stored: string) => PLAIN_TOKEN.test(stored);
