import { Type } from 'typebox';
import {
  ChatId,
  Hwid,
  KeyStatus,
  LicenseKey,
  Note,
  NullableString,
  NullableTime,
  NullableTimeInput,
  Strict,
  Time,
  TimeInput,
} from '../../schemas.ts';

/** Fields active and generated keys share (contract §3). */
const KeyFields = {
  note: NullableString,
  isPremium: Type.Boolean(),
  noHwidValidation: Type.Boolean(),
  status: KeyStatus,
  expiresAt: NullableTime,
  chatId: NullableString,
  maxHwids: Type.Integer(),
  /** Contract §17: the member or owner who made the key; null for shops, the key system, imports and machines. */
  createdBy: Type.Union([Type.Object({ accountId: Type.String(), username: NullableString }), Type.Null()]),
  /** Live sessions the key may hold at once; 0 = no limit (contract §18). */
  maxSessions: Type.Integer(),
};

const MaxHwids = Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be a whole number from 1 to 100' });
export const MaxSessions = Type.Integer({
  minimum: 0,
  maximum: 100,
  errorMessage: 'must be a whole number from 0 (no limit) to 100',
});

const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
export const ActiveKey = Type.Object({
  key: Type.String(),
  hwid: NullableString,
  hwids: Type.Array(Type.String()),
  ...KeyFields,
  executions: Type.Integer(),
  createdAt: Time,
  activatedAt: Time,
  lastUsedAt: NullableTime,
  hwidResetAt: NullableTime,
  hwidResetCount: Type.Integer(),
  /** Contract §19: the ban in force's reason and end (null = permanent); both null when the key is not banned. */
  banReason: NullableString,
  banExpiresAt: NullableTime,
  /** Contract §23: a key bound before its first use whose time has not started: the days it runs from its first validation; else null. */
  durationDays: NullableInteger,
});

/** A ban's reason (contract §19), with status banned only. */
export const BanReason = Type.Union([Type.String({ maxLength: 256, pattern: '^[^\\x00]*$' }), Type.Null()], {
  errorMessage: 'must be a reason of at most 256 characters, or null',
});

// durationDays: for afterRedeem keys, the days the key runs from its redemption (contract §12.1); null otherwise.
export const GeneratedKey = Type.Object({
  key: Type.String(),
  ...KeyFields,
  expirationType: Type.String(),
  durationDays: NullableInteger,
  createdAt: Time,
});

const Days = Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number from 1 to 3650' });

export const GenerateBody = Strict({
  expirationType: Type.Union([Type.Literal('byDays'), Type.Literal('byDate'), Type.Literal('lifetime'), Type.Literal('afterRedeem')], {
    errorMessage: 'must be one of byDays, byDate, lifetime, afterRedeem',
  }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, errorMessage: 'must be a whole number from 1 to 1000' })),
  days: Type.Optional(Days),
  expiresAt: Type.Optional(TimeInput),
  note: Type.Optional(Note),
  isPremium: Type.Optional(Type.Boolean()),
  noHwidValidation: Type.Optional(Type.Boolean()),
  chatId: Type.Optional(ChatId),
  maxHwids: Type.Optional(MaxHwids),
  maxSessions: Type.Optional(MaxSessions),
});

export const ActiveKeyQuery = Strict({
  key: Type.Optional(LicenseKey),
  hwid: Type.Optional(Hwid),
  note: Type.Optional(Note),
});
export const GeneratedKeyQuery = Strict({ key: Type.Optional(LicenseKey), note: Type.Optional(Note) });
export const KeyQuery = Strict({ key: LicenseKey });

const editFields = {
  key: LicenseKey,
  note: Type.Optional(Type.Union([Note, Type.Null()], { errorMessage: 'must be a string of at most 256 characters or null' })),
  isPremium: Type.Optional(Type.Boolean()),
  noHwidValidation: Type.Optional(Type.Boolean()),
  status: Type.Optional(KeyStatus),
  expiresAt: Type.Optional(NullableTimeInput),
  chatId: Type.Optional(Type.Union([ChatId, Type.Null()], { errorMessage: 'must be 17 to 20 digits, or null to unlink' })),
  maxHwids: Type.Optional(MaxHwids),
  maxSessions: Type.Optional(MaxSessions),
};
export const EditActiveKeyBody = Strict({
  ...editFields,
  // With status banned only: the ban's reason and end (absent = null: no reason, permanent).
  banReason: Type.Optional(BanReason),
  banExpiresAt: Type.Optional(NullableTimeInput),
  hwid: Type.Optional(Type.Union([Hwid, Type.Null()], { errorMessage: 'must be 1 to 256 printable characters or null' })),
});
// expirationType afterRedeem with days makes the key's time start at redemption; an expiresAt makes it a dated key again.
export const EditGeneratedKeyBody = Strict({
  ...editFields,
  expiresAt: Type.Optional(TimeInput),
  expirationType: Type.Optional(
    Type.Literal('afterRedeem', { errorMessage: 'can only be set to afterRedeem (send expiresAt for a date)' }),
  ),
  days: Type.Optional(Days),
});

export const ExtendBody = Strict({
  key: LicenseKey,
  days: Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number from 1 to 3650' }),
});
export const CompensateBody = Strict({
  days: Type.Integer({ minimum: 1, maximum: 365, errorMessage: 'must be a whole number from 1 to 365' }),
});

export const BindingQuery = Strict({
  key: LicenseKey,
  type: Type.Union([Type.Literal('active'), Type.Literal('generated')], { errorMessage: 'must be active or generated' }),
});
export const Binding = Type.Object({
  key: Type.String(),
  type: Type.String(),
  bound: Type.Boolean(),
  hwid: NullableString,
});

export const ByChatQuery = Strict({
  chatId: ChatId,
  includeLoadstring: Type.Optional(Type.Union([Type.Literal('0'), Type.Literal('1')], { errorMessage: 'must be 0 or 1' })),
});
export const Loadstring = Type.Object({ scriptId: Type.String(), name: Type.String(), loadstring: Type.String() });
export const ByChat = Type.Object({
  chatId: Type.String(),
  // Each item is an ActiveKey or a GeneratedKey plus its `type`.
  keys: Type.Array(Type.Object({ type: Type.String(), key: Type.String() }, { additionalProperties: true })),
  loadstrings: Type.Optional(Type.Array(Loadstring)),
  /** The same scripts as `loadstrings`, each with `script_key = "<the user's valid key>"` above it: ready to paste. */
  snippets: Type.Optional(Type.Array(Type.Object({ scriptId: Type.String(), name: Type.String(), snippet: Type.String() }))),
});

export const ResetBody = Strict({ key: LicenseKey });
export const ResetResult = Type.Object({
  key: Type.String(),
  hwid: Type.Null(),
  hwidResetAt: Time,
  nextResetAt: Time,
});
