import type { Config } from '../../config.ts';
import type { OutboundPolicy } from '../../net/outbound.ts';

/** Event endpoints: any https address whose every address is public, or an origin the operator listed (tests). */
export const eventsPolicy = (config: Config): OutboundPolicy => ({
  platformOrigins: [],
  explicitOrigins: config.eventWebhookOrigins,
  anyHttpsOrigin: true,
  // Contract §22: an attempt gives up after at most 10 s (a receiver that never answers holds one lane that long).
  timeoutMs: 10_000,
  maxResponseBytes: 16 * 1024,
});
