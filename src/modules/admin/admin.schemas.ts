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
export const BackupStatus = Type.Object({
  databaseKind: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  staleAfterDays: Type.Integer(),
  /** No backup yet, or the last one is older than staleAfterDays. */
  stale: Type.Boolean(),
  lastBackup: Type.Union([
    Type.Object({
      finishedAt: Time,
      sizeBytes: Type.Integer(),
      keyCount: Type.Integer(),
      databaseKind: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
    }),
    Type.Null(),
  ]),
});
