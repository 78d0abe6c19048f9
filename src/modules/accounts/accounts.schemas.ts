import { Type } from 'typebox';
import { Strict } from '../../schemas.ts';

export const ApiKey = Type.Object({ apiKey: Type.String() });

/** A Discord user id (right-click yourself in Discord, Copy User ID), or null to unlink. */
export const DiscordUserId = Type.Union([Type.String({ pattern: '^[0-9]{17,20}$' }), Type.Null()], {
  errorMessage: 'must be your Discord user id (17 to 20 digits: right-click your name in Discord, Copy User ID) or null',
});
export const AccountPatch = Strict({ discordUserId: DiscordUserId });
