import type { Migration } from 'kysely';
import * as auditAnalytics from './0009_audit_analytics.ts';
import * as core from './0001_core.ts';
import * as hardening from './0006_hardening.ts';
import * as jobLeases from './0011_job_leases.ts';
import * as keyHwids from './0007_key_hwids.ts';
import * as keySystem from './0010_key_system.ts';
import * as keysListing from './0008_keys_listing.ts';
import * as keysSearch from './0012_keys_search.ts';
import * as keysShortSearch from './0013_keys_short_search.ts';
import * as scriptVersions from './0017_script_versions.ts';
import * as scripts from './0003_scripts.ts';
import * as selling from './0018_selling.ts';
import * as signin from './0002_signin.ts';
import * as signingKeys from './0016_signing_keys.ts';
import * as usernameCase from './0014_username_case.ts';
import * as webhookOutbox from './0004_webhook_outbox.ts';
import * as dashboardRound3 from './0020_dashboard_round3.ts';
import * as discordEvents from './0019_discord_events.ts';
import * as backupRuns from './0021_backup_runs.ts';
import * as lastUsedHour from './0022_last_used_hour.ts';
import * as outbound from './0023_outbound.ts';
import * as luarmorBans from './0024_luarmor_bans.ts';
import * as teams from './0025_teams.ts';
import * as sessions from './0026_sessions.ts';
import * as liveSessionsHotPath from './0027_live_sessions_hot_path.ts';
import * as liveSessionEpochs from './0028_live_session_epochs.ts';
import * as discordConsole from './0031_discord_console.ts';
import * as executors from './0032_executors.ts';
import * as pendingDays from './0033_pending_days.ts';
import * as deletedServices from './0029_deleted_services.ts';
import * as resellerPolicy from './0034_reseller_policy.ts';
import * as lastUsedHourKeptByTrigger from './0035_last_used_hour_kept_by_trigger.ts';
import * as shortSearchIndex from './0036_short_search_index.ts';

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
  '0014_username_case': usernameCase,
  '0016_signing_keys': signingKeys,
  '0017_script_versions': scriptVersions,
  '0018_selling': selling,
  '0020_dashboard_round3': dashboardRound3,
  '0019_discord_events': discordEvents,
  '0021_backup_runs': backupRuns,
  '0022_last_used_hour': lastUsedHour,
  '0023_outbound': outbound,
  '0024_luarmor_bans': luarmorBans,
  '0025_teams': teams,
  '0026_sessions': sessions,
  '0027_live_sessions_hot_path': liveSessionsHotPath,
  '0028_live_session_epochs': liveSessionEpochs,
  '0031_discord_console': discordConsole,
  '0032_executors': executors,
  '0029_deleted_services': deletedServices,
  '0033_pending_days': pendingDays,
  '0034_reseller_policy': resellerPolicy,
  '0035_last_used_hour_kept_by_trigger': lastUsedHourKeptByTrigger,
  '0036_short_search_index': shortSearchIndex,
};
