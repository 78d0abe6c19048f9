/**
 * Every table's shape, in one place (src/db/schema/ by area). Kysely sees camelCase; CamelCasePlugin maps to snake_case
 * columns. Booleans are 0/1 integers and times epoch milliseconds, so both dialects agree.
 */
export type * from './schema/accounts-keys.ts';
export type * from './schema/scripts-key-system.ts';
export type * from './schema/operations.ts';
export type * from './schema/selling-protection.ts';
export type * from './schema/teams.ts';
import type {
  AccountsTable,
  ServicesTable,
  GeneratedKeysTable,
  ActiveKeysTable,
  KeyHwidsTable,
  KeylessTable,
  BlacklistTable,
  SessionsTable,
  CaptchaUsesTable,
  LoginFailuresTable,
} from './schema/accounts-keys.ts';
import type {
  ScriptsTable,
  ScriptChunksTable,
  VaultScriptsTable,
  ShortLinksTable,
  KeySystemSettingsTable,
  KeySystemSessionsTable,
  KeySystemTokensTable,
  KeySystemGrantsTable,
} from './schema/scripts-key-system.ts';
import type {
  WebhookOutboxTable,
  AnalyticsBucketsTable,
  AnalyticsCodesTable,
  AnalyticsScriptsTable,
  AnalyticsExecutorsTable,
  AnalyticsExecutorCodesTable,
  AuditLogTable,
  JobLeasesTable,
  BackupRunsTable,
  LiveSessionsTable,
  LiveSessionEpochsTable,
  DeletedServicesTable,
} from './schema/operations.ts';
import type {
  ServiceSigningKeysTable,
  ProductsTable,
  ShopSettingsTable,
  ShopOrdersTable,
  ScriptVersionsTable,
  ServiceVariablesTable,
  RelayWindowsTable,
  DiscordRoleMembersTable,
  EventEndpointsTable,
  EventDeliveriesTable,
} from './schema/selling-protection.ts';
import type { ChatInteractionsTable, ChatNoticeCountsTable, ServiceInvitesTable, ServiceMembersTable } from './schema/teams.ts';

export interface Database {
  // Accounts, services and their keys
  accounts: AccountsTable;
  services: ServicesTable;
  generatedKeys: GeneratedKeysTable;
  activeKeys: ActiveKeysTable;
  keyHwids: KeyHwidsTable;
  keyless: KeylessTable;
  blacklist: BlacklistTable;
  // Sign-in
  sessions: SessionsTable;
  captchaUses: CaptchaUsesTable;
  loginFailures: LoginFailuresTable;
  // Scripts, vault, short links
  scripts: ScriptsTable;
  scriptChunks: ScriptChunksTable;
  vaultScripts: VaultScriptsTable;
  shortLinks: ShortLinksTable;
  // Key system
  keySystemSettings: KeySystemSettingsTable;
  keySystemSessions: KeySystemSessionsTable;
  keySystemTokens: KeySystemTokensTable;
  keySystemGrants: KeySystemGrantsTable;
  // Webhook, analytics, audit, jobs
  webhookOutbox: WebhookOutboxTable;
  analyticsBuckets: AnalyticsBucketsTable;
  analyticsCodes: AnalyticsCodesTable;
  analyticsScripts: AnalyticsScriptsTable;
  analyticsExecutors: AnalyticsExecutorsTable;
  analyticsExecutorCodes: AnalyticsExecutorCodesTable;
  auditLog: AuditLogTable;
  jobLeases: JobLeasesTable;
  backupRuns: BackupRunsTable;
  // Signed answers
  serviceSigningKeys: ServiceSigningKeysTable;
  // Selling
  products: ProductsTable;
  shopSettings: ShopSettingsTable;
  shopOrders: ShopOrdersTable;
  // Script versions, variables, relay
  scriptVersions: ScriptVersionsTable;
  serviceVariables: ServiceVariablesTable;
  relayWindows: RelayWindowsTable;
  // Discord role, event webhooks
  discordRoleMembers: DiscordRoleMembersTable;
  eventEndpoints: EventEndpointsTable;
  eventDeliveries: EventDeliveriesTable;
  // Teams and resellers
  serviceMembers: ServiceMembersTable;
  serviceInvites: ServiceInvitesTable;
  // Live sessions
  liveSessions: LiveSessionsTable;
  liveSessionEpochs: LiveSessionEpochsTable;
  // Discord console
  chatInteractions: ChatInteractionsTable;
  chatNoticeCounts: ChatNoticeCountsTable;
  deletedServices: DeletedServicesTable;
}
