import type { Log } from '../../context.ts';
import type { EndReason, LiveSessions, SessionSelector } from './live-sessions.ts';

export type { EndReason, SessionSelector } from './live-sessions.ts';

/**
 * Ends the selected sessions now (contract §18 "ending live"). Called by the services that make a key's verdict refused
 * (keys, bulk actions, HWID reset, blacklist, scripts), after their change committed; a failure of the live state is
 * logged, never turned into a failure of the change (the key is refused at its next validation anyway). A file of its
 * own, importing no other module, so those services can call it without an import loop through validation.
 */
export async function endSessions(
  ctx: { liveSessions: LiveSessions; clock: () => number; log: Log },
  serviceId: string,
  selector: SessionSelector,
  reason: EndReason,
): Promise<number> {
  try {
    return await ctx.liveSessions.end(serviceId, selector, reason, ctx.clock());
  } catch (err) {
    ctx.log.warn({ err, serviceId, reason }, 'live sessions not ended');
    return 0;
  }
}

/**
 * A seller changed a key's expiry (contract §27: moved earlier, it must still end the key's sessions when it passes):
 * every instance judges the key's live sessions against the new one from their next heartbeat. Logged, never failed,
 * as endSessions.
 */
export async function keyExpiryChanged(
  ctx: { liveSessions: LiveSessions; log: Log },
  serviceId: string,
  key: string,
  expiresAt: number | null,
): Promise<void> {
  try {
    await ctx.liveSessions.keyExpiryChanged(serviceId, key, expiresAt);
  } catch (err) {
    ctx.log.warn({ err, serviceId }, 'live sessions not told of a new key expiry');
  }
}
