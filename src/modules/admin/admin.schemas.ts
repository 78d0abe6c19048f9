import { Type } from 'typebox';
import { Account, Strict, Time } from '../../schemas.ts';

export const StaffAccount = Type.Object({ ...Account.properties, disabled: Type.Boolean() });
export const StaffService = Type.Object({
  id: Type.String(),
  identifier: Type.String(),
  name: Type.String(),
  accountId: Type.String(),
  ownerUsername: Type.String(),
  createdAt: Time,
});
export const RoleBody = Strict({
  role: Type.Union([Type.Literal('user'), Type.Literal('moderator'), Type.Literal('admin')], {
    errorMessage: 'must be one of user, moderator, admin',
  }),
});
