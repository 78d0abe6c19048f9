import { Type } from 'typebox';

/** What /healthz answers: `ok`, or 503 with what is down. */
export const HealthStatus = Type.Object({ status: Type.String() });
