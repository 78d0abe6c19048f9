import { Type } from 'typebox';
import { Strict, Time } from '../../schemas.ts';

export const QueryTime = Type.String({ maxLength: 40, errorMessage: 'must be an ISO 8601 date-time or epoch milliseconds' });
export const AnalyticsQuery = Strict({
  from: Type.Optional(QueryTime),
  to: Type.Optional(QueryTime),
  interval: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { errorMessage: 'must be hour or day' })),
});
export const Bucket = Type.Object({
  at: Time,
  validations: Type.Integer(),
  valid: Type.Integer(),
  refused: Type.Integer(),
  executions: Type.Integer(),
  redemptions: Type.Integer(),
  keySystemKeys: Type.Integer(),
  /** The most live sessions at once in the bucket (contract §18). */
  peakSessions: Type.Integer(),
});
export const Analytics = Type.Object({
  from: Time,
  to: Time,
  interval: Type.String(),
  series: Type.Array(Bucket),
  codes: Type.Record(Type.String(), Type.Integer()),
  scripts: Type.Array(Type.Object({ scriptId: Type.String(), name: Type.String(), executions: Type.Integer() })),
});

export const ExecutorsQuery = Strict({ from: Type.Optional(QueryTime), to: Type.Optional(QueryTime) });
export const Executors = Type.Object({
  from: Time,
  to: Time,
  items: Type.Array(
    Type.Object({
      /** As the run reported it (name and version); `unknown` when it named none, `other` past the day's 200 names. */
      executor: Type.String(),
      executions: Type.Integer(),
      valid: Type.Integer(),
      refused: Type.Record(Type.String(), Type.Integer()),
      peakSessions: Type.Integer(),
      lastSeen: Time,
    }),
  ),
});
