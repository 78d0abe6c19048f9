import { Type } from 'typebox';
import { Hwid, NullableString, NullableTime, Strict, Time, TimeInput } from '../../schemas.ts';

export const Entry = Type.Object({
  hwid: Type.String(),
  reason: NullableString,
  expiresAt: NullableTime,
  createdAt: Time,
});
export const HwidQuery = Strict({ hwid: Hwid });
export const AddBody = Strict({
  hwid: Hwid,
  reason: Type.Optional(Type.String({ maxLength: 512 })),
  expiresAt: Type.Optional(TimeInput),
});
export const Check = Type.Object({
  hwid: Type.String(),
  blacklisted: Type.Boolean(),
  reason: NullableString,
  expiresAt: NullableTime,
});
