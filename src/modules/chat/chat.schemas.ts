import { Type } from 'typebox';
import { NullableString, NullableTime, Strict, Time } from '../../schemas.ts';

export const ConnectBody = Strict({
  guildId: Type.String({ pattern: '^[0-9]{17,20}$', errorMessage: 'must be a chat server id of 17 to 20 digits' }),
  guildName: Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be 1 to 100 characters' }),
});
// No input; no body or an empty JSON object is tolerated, any field is not (and is named in the 400).
// `nullable` rather than a union with null, so Ajv reports the unknown field itself.
export const DisconnectBody = Strict({}, { nullable: true });

/**
 * What Discord is answered (its interaction response shape): 1 pong, 4 a message, 5 "thinking" (the result follows
 * through the follow-up webhook), 9 a modal. Checked by the service's own types; the schema only serializes it.
 */
export const InteractionAnswer = Type.Object({
  type: Type.Integer(),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export const ServiceParam = Type.Object({ service: Type.String({ minLength: 1, maxLength: 64 }) });

const Snowflake = (what: string, how: string) =>
  Type.String({ pattern: '^[0-9]{17,20}$', errorMessage: `must be a Discord ${what} id of 17 to 20 digits (${how})` });

export const SyncBody = Strict({}, { nullable: true });
export const SyncResult = Type.Object({ synced: Type.Array(Type.String()), at: Time });
export const ChatStatus = Type.Object({
  /** When the last validly signed interaction arrived, or null (Discord never reached this server). */
  interactionsVerified: NullableTime,
  commandsSyncedAt: NullableTime,
  botInServer: Type.Boolean(),
  canManageRoles: Type.Boolean(),
  /** The staff log channel (and any channel checked) → whether the bot can post embeds there. */
  canPostIn: Type.Record(Type.String(), Type.Boolean()),
  /** Discord's last refusal, in words; null when the last call went through. */
  lastError: NullableString,
});
export const PanelBody = Strict({
  channelId: Snowflake('channel', 'right-click the channel, Copy Channel ID'),
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 256, errorMessage: 'must be 1 to 256 characters' })),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 4000, errorMessage: 'must be 1 to 4000 characters' })),
  color: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffff, errorMessage: 'must be a colour number from 0 to 16777215' })),
});
export const PanelResult = Type.Object({ messageId: Type.String() });
