import { Type } from 'typebox';
import { LicenseKey, NullableString, NullableTime, Strict, Time } from '../../schemas.ts';

export const Settings = Type.Object({
  webhookUrl: NullableString,
  webhookEnabled: Type.Boolean(),
  hwidResetCooldownFreeHours: Type.Integer(),
  hwidResetCooldownPremiumHours: Type.Integer(),
  chatInteractionsPublicKey: NullableString,
  chat: Type.Union([Type.Object({ guildId: Type.String(), guildName: Type.String() }), Type.Null()]),
  /** Write-only: "****" when set (contract §12.3). */
  chatBotToken: NullableString,
  chatRoleId: NullableString,
  /** The Discord application's id (contract §24.1). */
  chatApplicationId: NullableString,
  /** The staff channel notices are posted to (contract §24.4). */
  chatLogChannelId: NullableString,
  /** How often clients heartbeat a live session (contract §18). */
  sessionHeartbeatSeconds: Type.Integer(),
});
export const Info = Type.Object({ id: Type.String(), identifier: Type.String(), name: Type.String(), createdAt: Time, settings: Settings });
export const Status = Type.Object({
  activeKeys: Type.Integer(),
  generatedKeys: Type.Integer(),
  keylessEntries: Type.Integer(),
  blacklistedHwids: Type.Integer(),
  totalExecutions: Type.Integer(),
  /** Sessions live now on every instance (contract §18). */
  liveSessions: Type.Integer(),
});
export const Executions = Type.Object({ executions: Type.Integer(), lastActiveAt: NullableTime });
// The body is optional; a missing one becomes {} before validation (see the route) rather than a
// union with null, whose failure would name the whole body instead of the offending field.
export const ExecutionBody = Strict({ key: Type.Optional(LicenseKey) });
export const Hours = Type.Integer({ minimum: 0, maximum: 720, errorMessage: 'must be a whole number of hours from 0 to 720' });
export const SettingsBody = Strict({
  webhookUrl: Type.Optional(Type.Union([Type.String({ maxLength: 512 }), Type.Null()], { errorMessage: 'must be a webhook URL or null' })),
  webhookEnabled: Type.Optional(Type.Boolean()),
  hwidResetCooldownFreeHours: Type.Optional(Hours),
  hwidResetCooldownPremiumHours: Type.Optional(Hours),
  chatInteractionsPublicKey: Type.Optional(
    Type.Union([Type.String({ pattern: '^[0-9a-fA-F]{64}$' }), Type.Null()], { errorMessage: 'must be 64 hexadecimal characters or null' }),
  ),
  chatBotToken: Type.Optional(
    Type.Union([Type.String({ minLength: 20, maxLength: 200, pattern: '^[A-Za-z0-9._-]+$' }), Type.Null()], {
      errorMessage: "must be your Discord bot's token (from the Bot page of the Discord developer portal) or null",
    }),
  ),
  chatRoleId: Type.Optional(
    Type.Union([Type.String({ pattern: '^[0-9]{17,20}$' }), Type.Null()], {
      errorMessage: 'must be a Discord role id (17 to 20 digits: right-click the role, Copy Role ID) or null',
    }),
  ),
  chatApplicationId: Type.Optional(
    Type.Union([Type.String({ pattern: '^[0-9]{17,20}$' }), Type.Null()], {
      errorMessage:
        'must be your Discord application id (17 to 20 digits, on the General Information page of the developer portal) or null',
    }),
  ),
  chatLogChannelId: Type.Optional(
    Type.Union([Type.String({ pattern: '^[0-9]{17,20}$' }), Type.Null()], {
      errorMessage: 'must be a Discord channel id (17 to 20 digits: right-click the channel, Copy Channel ID) or null',
    }),
  ),
  sessionHeartbeatSeconds: Type.Optional(
    Type.Integer({ minimum: 10, maximum: 300, errorMessage: 'must be a whole number of seconds from 10 to 300' }),
  ),
});
