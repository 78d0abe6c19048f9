import type { Redis } from 'ioredis';
import type { AnalyticsAggregator } from './modules/analytics/aggregator.ts';
import type { Config } from './config.ts';
import type { Db, Dialect } from './db/database.ts';
import type { Sealer } from './lib/secrets.ts';
import type { Clock } from './lib/time.ts';

/** What domain code may depend on: no HTTP in here. Services take it (or its parts) as arguments. */
export interface AppContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  sealer: Sealer;
  clock: Clock;
  redis: Redis | null;
  /** This instance's analytics counts not yet written (contract §7.5). */
  analytics: AnalyticsAggregator;
}
