// Input shapes of the Luarmor-compatible API (contract §16.2), as Luarmor's clients send them. Unlike Keyward's own
// routes, unknown fields are accepted and ignored: Luarmor's clients send options Keyward has no use for (§16.1).
import { Type, type TProperties } from 'typebox';

/** An object that allows fields beyond `properties` (they are ignored). */
const Open = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: true });

const NoNul = '^[^\\x00]*$';
const UserKey = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  errorMessage: 'must be a key: letters, digits, _ and -',
});
const Identifier = Type.String({ maxLength: 256, pattern: '^[\\x20-\\x7E]*$', errorMessage: 'must be up to 256 printable characters' });
const DiscordId = Type.String({ maxLength: 20, pattern: '^[0-9]*$', errorMessage: 'must be a Discord user id (17 to 20 digits)' });
const Note = Type.String({ maxLength: 256, pattern: NoNul, errorMessage: 'must be at most 256 characters' });
const UnixTime = Type.Integer({ minimum: -1, maximum: 253402300799, errorMessage: 'must be a Unix time in seconds, or -1' });
const Index = Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$', errorMessage: 'must be a whole number' });

export const ProjectParams = Open({ project_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ApiKeyParams = Open({ api_key: Type.String({ minLength: 1, maxLength: 128 }) });
export const UserParams = Open({ project_id: Type.String({ minLength: 1, maxLength: 64 }), user_key: UserKey });
export const ScriptParams = Open({
  project_id: Type.String({ minLength: 1, maxLength: 64 }),
  script_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const StatsQuery = Open({ noUsers: Type.Optional(Type.String()) });

export const UsersQuery = Open({
  user_key: Type.Optional(UserKey),
  discord_id: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
  identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: NoNul })),
  from: Type.Optional(Index),
  until: Type.Optional(Index),
});

export const CreateUserBody = Open({
  identifier: Type.Optional(Identifier),
  discord_id: Type.Optional(DiscordId),
  note: Type.Optional(Note),
  auth_expire: Type.Optional(UnixTime),
  key_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number from 1 to 3650' })),
});

export const EditUserBody = Open({
  user_key: UserKey,
  identifier: Type.Optional(Identifier),
  discord_id: Type.Optional(DiscordId),
  note: Type.Optional(Note),
  auth_expire: Type.Optional(UnixTime),
});

export const UserKeyQuery = Open({ user_key: UserKey });
export const ResetBody = Open({ user_key: UserKey, force: Type.Optional(Type.Boolean()) });
export const LinkDiscordBody = Open({
  user_key: UserKey,
  discord_id: Type.String({ maxLength: 64 }),
  force: Type.Optional(Type.Boolean()),
});
export const BlacklistBody = Open({
  user_key: UserKey,
  ban_reason: Type.Optional(Type.String({ maxLength: 256, pattern: NoNul, errorMessage: 'must be at most 256 characters' })),
  ban_expire: Type.Optional(Type.Integer({ maximum: 253402300799, errorMessage: 'must be a Unix time in seconds' })),
});
export const UnbanInput = Open({ unban_token: Type.String({ minLength: 1, maxLength: 128 }) });

const ScriptOptions = {
  ffa: Type.Optional(Type.Boolean()),
  silent: Type.Optional(Type.Boolean()),
  // Live sessions (contract §18) are another feature's; accepted here so a Luarmor client's body is never refused.
  heartbeat: Type.Optional(Type.Boolean()),
};
export const CreateScriptBody = Open({
  name: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be 1 to 64 characters' }),
  script: Type.String({ minLength: 1, errorMessage: 'must be the Lua code' }),
  ...ScriptOptions,
});
export const UpdateScriptBody = Open({ script: Type.Optional(Type.String({ minLength: 1 })), ...ScriptOptions });
