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
