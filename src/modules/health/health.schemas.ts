import { Type } from 'typebox';

/** What /healthz answers: `ok`, or 503 with what is down; `redis` only when REDIS_URL is set (an add-on: never a 503). */
export const HealthStatus = Type.Object({
  status: Type.String(),
  redis: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('unreachable')])),
});
