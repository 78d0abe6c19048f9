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
  errorMessage: 'must be a key: 1 to 64 of letters, digits, _ and -',
});
const Identifier = Type.String({
  maxLength: 256,
  pattern: '^[\\x20-\\x7E]*$',
  errorMessage: "must be the buyer's HWID as text: up to 256 printable characters",
});
// Any JSON value: the services answer `Invalid discord_id` for anything but 17–20 digits, on every route (contract §23).
const DiscordId = Type.Unknown();
// Newlines and tabs are a note's own (contract §23); no other control character.
const Note = Type.String({
  maxLength: 256,
  pattern: '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F]*$',
  errorMessage: 'must be text of at most 256 characters (newlines and tabs allowed, no other control characters)',
});
const UnixTime = Type.Integer({
  minimum: -1,
  maximum: 253402300799,
  errorMessage: 'must be a Unix time in seconds (a whole number), or -1 for lifetime',
});
const KeyDays = Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number of days from 1 to 3650' });
const Index = Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$', errorMessage: 'must be a whole number (an index, 0 or more)' });
const Flag = () => Type.Boolean({ errorMessage: 'must be true or false' });

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
  discord_id: Type.Optional(Type.String({ maxLength: 64, errorMessage: 'must be a Discord user id' })),
  identifier: Type.Optional(Type.String({ maxLength: 256, errorMessage: 'must be an HWID of up to 256 characters' })),
  search: Type.Optional(Type.String({ maxLength: 256, pattern: NoNul, errorMessage: 'must be text of up to 256 characters' })),
  from: Type.Optional(Index),
  until: Type.Optional(Index),
});

/** What POST /users takes, and each entry of POST /users/import beside its user_key. */
const NewUser = {
  identifier: Type.Optional(Identifier),
  discord_id: Type.Optional(DiscordId),
  note: Type.Optional(Note),
  auth_expire: Type.Optional(UnixTime),
  key_days: Type.Optional(KeyDays),
};
export const CreateUserBody = Open(NewUser);

export const EditUserBody = Open({
  user_key: UserKey,
  identifier: Type.Optional(Identifier),
  discord_id: Type.Optional(DiscordId),
  note: Type.Optional(Note),
  auth_expire: Type.Optional(UnixTime),
});

// A seller's own keys as Luarmor takes them: 8–64 of [A-Za-z0-9_-], like Keyward's import (contract §7.4).
const ImportedKey = Type.String({
  minLength: 8,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  errorMessage: 'must be a key: 8 to 64 of letters, digits, _ and -',
});
export const MAX_IMPORTED_USERS = 10_000;
export const ImportUsersBody = Open({
  users: Type.Array(Open({ user_key: ImportedKey, ...NewUser }), {
    minItems: 1,
    maxItems: MAX_IMPORTED_USERS,
    errorMessage: `must be a list of 1 to ${MAX_IMPORTED_USERS.toLocaleString('en-US')} users`,
  }),
});

export const UserKeyQuery = Open({ user_key: UserKey });
export const ResetBody = Open({ user_key: UserKey, force: Type.Optional(Flag()) });
export const LinkDiscordBody = Open({
  user_key: UserKey,
  discord_id: DiscordId,
  force: Type.Optional(Flag()),
});
export const BlacklistBody = Open({
  user_key: UserKey,
  ban_reason: Type.Optional(Type.String({ maxLength: 256, pattern: NoNul, errorMessage: 'must be text of at most 256 characters' })),
  ban_expire: Type.Optional(
    Type.Integer({ maximum: 253402300799, errorMessage: 'must be a Unix time in seconds (a whole number), or -1 for a permanent ban' }),
  ),
});
export const UnbanInput = Open({ unban_token: Type.String({ minLength: 1, maxLength: 128, errorMessage: 'must be the unban token' }) });

const ScriptOptions = {
  ffa: Type.Optional(Flag()),
  silent: Type.Optional(Flag()),
  heartbeat: Type.Optional(Flag()),
};
export const CreateScriptBody = Open({
  name: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be the script name: 1 to 64 characters' }),
  script: Type.String({ minLength: 1, errorMessage: 'must be the Lua code as text' }),
  ...ScriptOptions,
});
export const UpdateScriptBody = Open({
  script: Type.Optional(Type.String({ minLength: 1, errorMessage: 'must be the Lua code as text' })),
  ...ScriptOptions,
});
