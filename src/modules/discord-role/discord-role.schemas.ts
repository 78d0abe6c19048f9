import { Type } from 'typebox';
import { Time } from '../../schemas.ts';

export const RoleStatus = Type.Object({
  configured: Type.Boolean(),
  botTokenSet: Type.Boolean(),
  roleId: Type.Union([Type.String(), Type.Null()]),
  serverBound: Type.Boolean(),
  members: Type.Integer(),
  waiting: Type.Array(
    Type.Object({
      userId: Type.String(),
      action: Type.Union([Type.Literal('grant'), Type.Literal('remove')]),
      attempts: Type.Integer(),
      lastError: Type.Union([Type.String(), Type.Null()]),
      nextAttemptAt: Time,
    }),
  ),
  failures: Type.Array(
    Type.Object({
      userId: Type.String(),
      action: Type.Union([Type.Literal('grant'), Type.Literal('remove')]),
      reason: Type.String(),
      at: Time,
    }),
  ),
});
