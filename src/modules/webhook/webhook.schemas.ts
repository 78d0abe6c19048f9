import { Type } from 'typebox';
import { NullableString, NullableTime, PageQuery, Strict, Time } from '../../schemas.ts';

export const PostBody = Strict({
  content: Type.String({ minLength: 1, maxLength: 2000, errorMessage: 'must be 1 to 2000 characters' }),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 80, errorMessage: 'must be 1 to 80 characters' })),
});
export const Delivered = Type.Object({ delivered: Type.Boolean(), queued: Type.Optional(Type.Boolean()) });
export const Revealed = Type.Object({ webhookUrl: Type.Union([Type.String(), Type.Null()]), webhookEnabled: Type.Boolean() });
export const OutboxStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('sending'), Type.Literal('delivered'), Type.Literal('failed')],
  {
    errorMessage: 'must be one of pending, sending, delivered, failed',
  },
);
export const OutboxQuery = Strict({ ...PageQuery, status: Type.Optional(OutboxStatusSchema) });
export const OutboxMessage = Type.Object({
  id: Type.String(),
  status: Type.String(),
  attempts: Type.Integer(),
  lastError: NullableString,
  createdAt: Time,
  deliveredAt: NullableTime,
  nextAttemptAt: NullableTime,
});
