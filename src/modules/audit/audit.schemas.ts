import { Type } from 'typebox';
import { NullableString, Paging, Strict, Time } from '../../schemas.ts';
import { AUDIT_ACTIONS } from './actor.ts';

export const Entry = Type.Object({
  id: Type.String(),
  at: Time,
  action: Type.String(),
  actor: Type.Object({ kind: Type.String(), accountId: NullableString, username: NullableString }),
  ip: NullableString,
  target: NullableString,
  details: Type.Record(Type.String(), Type.Unknown()),
});
export const QueryTime = Type.String({ maxLength: 40, errorMessage: 'must be an ISO 8601 date-time or epoch milliseconds' });
export const AuditQuery = Strict({
  ...Paging,
  action: Type.Optional(
    Type.Union(
      AUDIT_ACTIONS.map((a) => Type.Literal(a)),
      { errorMessage: `must be one of ${AUDIT_ACTIONS.join(', ')}` },
    ),
  ),
  /** Entries made by this account (contract §17). */
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be an account id' })),
  from: Type.Optional(QueryTime),
  to: Type.Optional(QueryTime),
});
