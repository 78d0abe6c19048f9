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
