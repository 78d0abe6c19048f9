import { Type } from 'typebox';
import { Account, Strict, Time } from '../../schemas.ts';
import { ServiceWithRole } from './services.schemas.ts';

// Teams and resellers (contract §17): invites, members and a reseller's quota.

export const MemberRole = Type.Union([Type.Literal('manager'), Type.Literal('support'), Type.Literal('reseller')], {
  errorMessage: 'must be one of manager, support, reseller',
});

/** A reseller's quota as sent: every field optional, the rest keeps its value (or its default on a new quota). */
export const QuotaInput = Strict({
  keysLeft: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, errorMessage: 'must be a whole number from 0 to 1000000' })),
  maxDays: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], {
      errorMessage: 'must be a whole number from 1 to 3650, or null',
    }),
  ),
  allowLifetime: Type.Optional(Type.Boolean()),
  // The reseller key policy (contract §25): what the reseller's keys may carry.
  maxHwids: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be a whole number from 1 to 100' })),
  allowNoHwidValidation: Type.Optional(Type.Boolean()),
  allowPremium: Type.Optional(Type.Boolean()),
  maxSessions: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Null()], {
      errorMessage: 'must be a whole number from 1 to 100, or null (the reseller chooses)',
    }),
  ),
});

const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
/** What a reseller's keys may carry (contract §25); maxSessions null: the reseller chooses. */
export const KeyPolicy = Type.Object({
  maxHwids: Type.Integer(),
  allowNoHwidValidation: Type.Boolean(),
  allowPremium: Type.Boolean(),
  maxSessions: NullableInteger,
});
export const Quota = Type.Object({
  keysLeft: Type.Integer(),
  maxDays: NullableInteger,
  allowLifetime: Type.Boolean(),
  ...KeyPolicy.properties,
});
const NullableQuota = Type.Union([Quota, Type.Null()]);

export const CreateInviteBody = Strict({ role: MemberRole, quota: Type.Optional(QuotaInput) });
export const Invite = Type.Object({
  code: Type.String(),
  url: Type.String(),
  role: Type.String(),
  quota: NullableQuota,
  createdAt: Time,
  expiresAt: Time,
});
export const InviteList = Type.Object({ items: Type.Array(Invite) });
export const InviteParams = Strict({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  code: Type.String({ minLength: 1, maxLength: 64 }),
});
export const CodeParams = Strict({ code: Type.String({ minLength: 1, maxLength: 64 }) });
export const Accepted = Type.Object({ service: ServiceWithRole });

export const Member = Type.Object({
  accountId: Type.String(),
  username: Type.String(),
  role: Type.String(),
  quota: NullableQuota,
  keysCreated: Type.Integer(),
  keysRedeemed: Type.Integer(),
  joinedAt: Time,
});
export const MemberList = Type.Object({ items: Type.Array(Member) });
export const MemberParams = Strict({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  accountId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const UpdateMemberBody = Strict({ role: Type.Optional(MemberRole), quota: Type.Optional(QuotaInput) });
export const Left = Type.Object({ left: Type.Boolean() });
export const Removed = Type.Object({ removed: Type.Boolean() });

export const ResellerStatus = Type.Object({
  keysLeft: Type.Integer(),
  maxDays: NullableInteger,
  allowLifetime: Type.Boolean(),
  ...KeyPolicy.properties,
  keysCreated: Type.Integer(),
  keysRedeemed: Type.Integer(),
});

/** GET /invites/:code (contract §25): what the invite page shows; quota and policy are null for a role other than reseller. */
export const InviteInfo = Type.Object({
  service: Type.Object({ id: Type.String(), name: Type.String() }),
  role: MemberRole,
  quota: Type.Union([Type.Object({ keysLeft: Type.Integer(), maxDays: NullableInteger, allowLifetime: Type.Boolean() }), Type.Null()]),
  policy: Type.Union([KeyPolicy, Type.Null()]),
  invitedBy: Type.Object({ username: Type.String() }),
  expiresAt: Time,
});
/** The new account and the service it joined; the session cookie is set as sign-in sets it. */
export const Registered = Type.Object({ account: Account, service: ServiceWithRole });
