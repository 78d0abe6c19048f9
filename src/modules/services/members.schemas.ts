import { Type } from 'typebox';
import { Strict, Time } from '../../schemas.ts';
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
});

const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
export const Quota = Type.Object({ keysLeft: Type.Integer(), maxDays: NullableInteger, allowLifetime: Type.Boolean() });
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
  keysCreated: Type.Integer(),
  keysRedeemed: Type.Integer(),
});
