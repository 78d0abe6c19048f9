import type { AppContext } from '../../context.ts';
import { OutboundNetworkError, OutboundRefused, send, type OutboundResponse } from '../../net/outbound.ts';
import { retryAfterMs } from '../webhook/webhook.service.ts';

/**
 * The one way the console (contract §24) talks to Discord's REST API: under the discord outbound policy of
 * net/outbound.ts (DISCORD_API_URL), with a time limit the caller picks, and every answer turned into a value the
 * caller words for the seller. Nothing here throws for an answer Discord gives.
 */

export interface DiscordRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** From /api/v10/… on. */
  path: string;
  json?: unknown;
  /** The bot token (`Authorization: Bot …`); none for interaction webhooks, whose token is in the path. */
  botToken?: string | null;
  timeoutMs: number;
  /** A page of guild members is large; everything else is small. */
  maxResponseBytes?: number;
}

export type DiscordResult =
  | { ok: true; status: number; body: unknown }
  | { ok: false; kind: 'rate-limited'; waitMs: number; error: string }
  | { ok: false; kind: 'transient'; error: string; status?: number }
  | { ok: false; kind: 'permanent'; error: string; status: number };

const USER_AGENT = 'DiscordBot (https://github.com/keyward/keyward, 1) Keyward';

/** What a refusal means for the seller, in one sentence that says what to do. */
export function refusalWords(status: number, body: string): string {
  let message = '';
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === 'string') message = ` (${parsed.message.slice(0, 200)})`;
  } catch {
    // not JSON
  }
  switch (status) {
    case 401:
      return `Discord refused the bot token${message}: paste the token from the Bot page of the developer portal again`;
    case 403:
      return `Discord refused${message}: the bot lacks a permission there (invite it again with the link on the Discord page)`;
    case 404:
      return `Discord answered 404${message}: check the application id, the server and the channel id`;
    default:
      return `Discord refused the call (HTTP ${status})${message}`;
  }
}

export async function discordRequest(ctx: AppContext, request: DiscordRequest): Promise<DiscordResult> {
  const policy = {
    ...ctx.outbound.discord,
    timeoutMs: request.timeoutMs,
    maxResponseBytes: request.maxResponseBytes ?? ctx.outbound.discord.maxResponseBytes,
  };
  let response: OutboundResponse;
  try {
    response = await send(`${ctx.config.discordApiUrl}${request.path}`, policy, {
      method: request.method,
      ...(request.json !== undefined && { json: request.json }),
      headers: request.botToken ? { authorization: `Bot ${request.botToken}` } : {},
      userAgent: USER_AGENT,
    });
  } catch (error) {
    if (error instanceof OutboundRefused) return { ok: false, kind: 'permanent', error: `refused: ${error.message}`, status: 0 };
    if (error instanceof OutboundNetworkError) return { ok: false, kind: 'transient', error: `Discord did not answer: ${error.message}` };
    throw error;
  }
  if (response.status >= 200 && response.status < 300) {
    let body: unknown = null;
    try {
      body = response.body ? JSON.parse(response.body) : null;
    } catch {
      body = null;
    }
    return { ok: true, status: response.status, body };
  }
  if (response.status === 429) {
    const waitMs = retryAfterMs(response, ctx.clock()) ?? 5_000;
    return { ok: false, kind: 'rate-limited', waitMs, error: 'Discord asked to slow down (429); try again in a moment' };
  }
  if (response.status >= 500) {
    return {
      ok: false,
      kind: 'transient',
      error: `Discord had a problem (HTTP ${response.status}); try again later`,
      status: response.status,
    };
  }
  return { ok: false, kind: 'permanent', error: refusalWords(response.status, response.body), status: response.status };
}
