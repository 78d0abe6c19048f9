import type { Migration } from 'kysely';
import * as core from './0001_core.ts';
import * as signin from './0002_signin.ts';
import * as scripts from './0003_scripts.ts';
import * as webhookOutbox from './0004_webhook_outbox.ts';
import * as hardening from './0006_hardening.ts';
import * as keyHwids from './0007_key_hwids.ts';
import * as keysListing from './0008_keys_listing.ts';
import * as auditAnalytics from './0009_audit_analytics.ts';
import * as keySystem from './0010_key_system.ts';
import * as jobLeases from './0011_job_leases.ts';
import * as keysSearch from './0012_keys_search.ts';
import * as keysShortSearch from './0013_keys_short_search.ts';
import * as selling from './0018_selling.ts';
import * as discordEvents from './0019_discord_events.ts';

/**
 * Every migration, in order. Names sort lexically; add a new file and one line here.
 * Migrations live in code (not a folder scan) so they ship inside any bundle and run the same everywhere.
 */
export const migrations: Record<string, Migration> = {
  '0001_core': core,
  '0002_signin': signin,
  '0003_scripts': scripts,
  '0004_webhook_outbox': webhookOutbox,
  '0006_hardening': hardening,
  '0007_key_hwids': keyHwids,
  '0008_keys_listing': keysListing,
  '0009_audit_analytics': auditAnalytics,
  '0010_key_system': keySystem,
  '0011_job_leases': jobLeases,
  '0012_keys_search': keysSearch,
  '0013_keys_short_search': keysShortSearch,
  '0018_selling': selling,
  '0019_discord_events': discordEvents,
};
