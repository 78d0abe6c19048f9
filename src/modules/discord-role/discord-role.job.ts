import type { Job } from '../../jobs/runner.ts';
import { sweepChatRoles } from './discord-role.service.ts';

/**
 * Notices keys that expired (no request does) and revokes the buyer role of users left without a valid key; grants
 * any it missed. Every 30 s on one instance, so an expiry is acted on within 60 s even when the lease moves.
 */
export const discordRoleSweepJob: Job = {
  name: 'discord-role-sweep',
  intervalMs: 30_000,
  exclusive: true,
  async run(ctx) {
    await sweepChatRoles(ctx);
  },
};
