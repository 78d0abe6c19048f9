import type { ColumnType, Generated } from 'kysely';

/**
 * Every table of the database, in one place, grouped by area. Table shapes as Kysely sees them (camelCase; CamelCasePlugin maps to snake_case columns).
 * Booleans are stored as 0/1 integers and times as epoch milliseconds so both dialects agree.
 */
export type Flag = 0 | 1;

// ---- Accounts, services and their keys ----

/** What a seller set a key to; expiry is a separate column. */
export type KeyStatus = 'active' | 'paused' | 'banned';

export interface AccountsTable {
  id: string;
  username: string;
  passwordHash: string;
  role: 'user' | 'moderator' | 'admin';
  disabled: Flag;
  apiKeyDigest: string | null;
  apiKeySealed: string | null;
  apiKeyCreatedAt: number | null;
  createdAt: number;
  // Sign-in state (migration 0002).
  totpEnabled: Generated<Flag>;
  /** The TOTP secret sealed with ctx.sealer; set by setup, confirmed by enable. */
  totpSecretSealed: string | null;
  /** The last accepted 30-second step: a code is good once. */
  totpLastStep: number | null;
  failedLoginCount: Generated<number>;
  loginLockedUntil: number | null;
  /** 1 for an account whose username differed only by case from an older one's before migration 0014. */
  usernameCaseDuplicate: Generated<Flag>;
}

export interface ServicesTable {
  id: string;
  accountId: string;
  identifier: string;
  name: string;
  apiKeyDigest: string;
  apiKeySealed: string;
  allowUrlShortener: Flag;
  allowManageKeys: Flag;
  allowVss: Flag;
  /** JSON array of a.b.c.d or a.b.c.d/n entries. */
  ipAllowlist: string;
  webhookUrl: string | null;
  webhookEnabled: Flag;
  hwidResetCooldownFreeHours: number;
  hwidResetCooldownPremiumHours: number;
  chatInteractionsPublicKey: string | null;
  chatGuildId: string | null;
  chatGuildName: string | null;
  /** The Discord bot's token, sealed (ctx.sealer); write-only (contract §12.3). */
  chatBotTokenSealed: ColumnType<string | null, string | null | undefined, string | null>;
  /** The buyer role granted while a user holds a valid key. */
  chatRoleId: ColumnType<string | null, string | null | undefined, string | null>;
  executions: number;
  lastActiveAt: number | null;
  createdAt: number;
}

// Both key tables also hold `search_text` (migration 0013): written only by the database's own triggers and read only
// by the short-search condition (src/db/search.ts), so it is left out of these types and no code can set it.
export interface GeneratedKeysTable {
  key: string;
  serviceId: string;
  note: string | null;
  isPremium: Flag;
  noHwidValidation: Flag;
  status: 'active' | 'paused' | 'banned';
  expiresAt: number | null;
  chatId: string | null;
  expirationType: 'byDays' | 'byDate' | 'lifetime' | 'afterRedeem';
  createdAt: number;
  maxHwids: Generated<number>;
  /** afterRedeem keys only: the days the key runs from its redemption (its expiresAt stays null until then). */
  durationDays: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ActiveKeysTable {
  key: string;
  serviceId: string;
  hwid: string | null;
  note: string | null;
  isPremium: Flag;
  noHwidValidation: Flag;
  status: 'active' | 'paused' | 'banned';
  expiresAt: number | null;
  chatId: string | null;
  executions: number;
  createdAt: number;
  activatedAt: number;
  lastUsedAt: number | null;
  hwidResetAt: number | null;
  hwidResetCount: number;
  maxHwids: Generated<number>;
  hwidCount: Generated<number>;
}

/** The HWIDs bound to an active key; `position` is the binding order (1 = first). */
export interface KeyHwidsTable {
  key: string;
  serviceId: string;
  hwid: string;
  position: number;
}

export interface KeylessTable {
  serviceId: string;
  hwid: string;
  isPremium: Flag;
  expiresAt: number;
  createdAt: number;
}

export interface BlacklistTable {
  serviceId: string;
  hwid: string;
  reason: string | null;
  expiresAt: number | null;
  createdAt: number;
}

// ---- Sign-in: sessions, the captcha replay guard, lockouts of unknown names (migrations 0002, 0006) ----

export interface SessionsTable {
  /** SHA-256 of the cookie value: a leaked table does not sign anyone in. */
  tokenDigest: string;
  accountId: string;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute expiry; the idle expiry is computed from lastSeenAt. */
  expiresAt: number;
}

export interface CaptchaUsesTable {
  signature: string;
  expiresAt: number;
}

/** Failed sign-ins for names that have no account, so the lockout answers alike (migration 0006). */
export interface LoginFailuresTable {
  username: string;
  failures: number;
  lockedUntil: number | null;
  updatedAt: number;
}

// ---- Scripts and their stored code ----

export type ObfuscationType = 'NONE' | 'IB1' | 'LURAPH' | 'WYNFUSCATOR';
export type ScriptStatus = 'ready' | 'processing' | 'failed';

export interface ScriptsTable {
  id: string;
  serviceId: string;
  name: string;
  obfuscationType: ObfuscationType;
  visible: Flag;
  status: ScriptStatus;
  failureReason: string | null;
  /** The code as uploaded (kept so a change of type can re-run the obfuscator). */
  sourceBlob: string;
  /** UTF-8 bytes of the uploaded code. */
  size: number;
  /** What the fetch route hands out; null until the obfuscator has finished. Equals sourceBlob for NONE. */
  outputBlob: string | null;
  outputSize: number | null;
  /** Changes on every (re-)run, so a stale worker's result is never written over a newer one. */
  jobId: string | null;
  /** A worker holds the job until then (epoch ms); null means nobody does. */
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  /** Kill switch (contract §13.3): a disabled script's fetch raises disabledMessage and counts nothing. */
  enabled: Generated<Flag>;
  disabledMessage: string | null;
  /** The script_versions row whose blob is sourceBlob. */
  currentVersion: Generated<number>;
  /** Hex SHA-256 of outputBlob (what fetch serves); null while there is none. */
  outputSha256: string | null;
}

/** Script code is stored as ordered chunks of at most CHUNK_BYTES so nothing ever needs it whole in memory. */
export interface ScriptChunksTable {
  blobId: string;
  seq: number;
  /** UTF-8 text; written as its bytes, read back as a Buffer (SQLite) or a string (PostgreSQL). */
  data: string | Buffer;
}

// ---- Vault ----

export interface VaultScriptsTable {
  id: string;
  accountId: string;
  name: string;
  /** AES-256-GCM under the server secret (ctx.sealer); never stored in clear. */
  codeSealed: string;
  /** UTF-8 bytes of the plaintext code. */
  size: number;
  createdAt: number;
  updatedAt: number;
}

// ---- Short links ----

export interface ShortLinksTable {
  slug: string;
  serviceId: string;
  url: string;
  clicks: Generated<number>;
  createdAt: number;
}

// ---- Key system (checkpoints before a key) ----

export type KeySystemProvider = 'none' | 'linkvertise' | 'workink' | 'lootlabs';

export interface KeySystemSettingsTable {
  serviceId: string;
  enabled: Flag;
  checkpoints: number;
  keyHours: number;
  minSecondsPerCheckpoint: number;
  provider: KeySystemProvider;
  /** JSON array of https URLs, one per checkpoint. */
  links: string;
  providerTokenSealed: string | null;
  pageTitle: string | null;
  /** 0 = no limit. */
  maxKeysPerAddressPerDay: number;
  updatedAt: number;
  /** `#rrggbb` for the get-key page's buttons and progress (0020); null: the dashboard's blue. */
  accentColor: string | null;
}

export interface KeySystemSessionsTable {
  id: string;
  serviceId: string;
  /** Digest of the secret in the browser's cookie: the session answers only that browser. */
  browserDigest: string;
  address: string;
  /** Checkpoints passed so far. */
  checkpoint: number;
  /** Fixed at start, so a settings change does not move the goal under a user. */
  checkpoints: number;
  checkpointStartedAt: number;
  /** Lootlabs: digest of the one-time token hidden in this checkpoint's encrypted destination. */
  expectedTokenDigest: string | null;
  /** Where the current checkpoint sends the user (null once the key is issued). */
  nextUrl: string | null;
  key: string | null;
  keyExpiresAt: number | null;
  createdAt: number;
  expiresAt: number;
}

export interface KeySystemTokensTable {
  provider: KeySystemProvider;
  tokenDigest: string;
  expiresAt: number;
}

export interface KeySystemGrantsTable {
  serviceId: string;
  address: string;
  key: string;
  issuedAt: number;
}

// ---- Webhook outbox ----

/**
 * `pending`: waiting for `nextAttemptAt`. `sending`: claimed by one instance until `leaseUntil`
 * (an expired lease means that instance died; the message is claimed again). `delivered` and
 * `failed` are final.
 */
export type OutboxStatus = 'pending' | 'sending' | 'delivered' | 'failed';

export interface WebhookOutboxTable {
  id: string;
  serviceId: string;
  /** The webhook address when the message was accepted (a record: the worker sends to the address the service has then). */
  url: string;
  /** JSON of what is posted to the platform. */
  payload: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  claimToken: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
  /** What the row sends (migration 0019): a chat message, a Discord role change, or an event. */
  kind: ColumnType<OutboxKind, OutboxKind | undefined, OutboxKind>;
  /** The event endpoint's id (event) or the Discord user's id (discordRole); null for chat. */
  target: ColumnType<string | null, string | null | undefined, string | null>;
}

export type OutboxKind = 'chat' | 'discordRole' | 'event';

// ---- Analytics ----

/** One service's counters for one UTC hour (`at` is the hour's start, epoch ms). */
export interface AnalyticsBucketsTable {
  serviceId: string;
  at: number;
  validations: number;
  valid: number;
  refused: number;
  executions: number;
  redemptions: number;
  keySystemKeys: number;
}

export interface AnalyticsCodesTable {
  serviceId: string;
  at: number;
  code: string;
  count: number;
}

export interface AnalyticsScriptsTable {
  serviceId: string;
  at: number;
  scriptId: string;
  executions: number;
}

// ---- Audit log ----

export interface AuditLogTable {
  id: string;
  at: number;
  /** The account that owns what changed: its log lists the entry. Null only for a system change with no owner. */
  accountId: string | null;
  /** Set for service actions: the service's log lists the entry. */
  serviceId: string | null;
  action: string;
  actorKind: string;
  actorAccountId: string | null;
  ip: string | null;
  target: string | null;
  /** JSON object of what changed; never a secret. */
  details: string;
}

// ---- Background jobs ----

/** Who runs an exclusive background job now (src/jobs/runner.ts). */
export interface JobLeasesTable {
  name: string;
  holder: string;
  leaseUntil: number;
}

// ---- Signed answers ----

/** A service's Ed25519 key pair (contract §13.1): the raw public key in base64, the PKCS#8 private key sealed. */
export interface ServiceSigningKeysTable {
  serviceId: string;
  publicKey: string;
  privateKeySealed: string;
  createdAt: number;
}

// ---- Selling (contract §12.2) ----

/** What a shop sells (contract §12.2): the keys one unit of it delivers. */
export interface ProductsTable {
  id: string;
  serviceId: string;
  name: string;
  expirationType: 'byDays' | 'afterRedeem' | 'lifetime';
  days: number | null;
  isPremium: Flag;
  maxHwids: number;
  note: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Each service's shop secrets, sealed (ctx.sealer); null = that shop is not connected. */
export interface ShopSettingsTable {
  serviceId: string;
  genericSecretSealed: string | null;
  sellixSecretSealed: string | null;
  sellauthSecretSealed: string | null;
  updatedAt: number;
}

/** One delivered order; unique per (service, provider, orderId), which makes retries idempotent. */
export interface ShopOrdersTable {
  id: string;
  serviceId: string;
  provider: 'generic' | 'sellix' | 'sellauth';
  orderId: string;
  productId: string;
  productName: string;
  quantity: number;
  /** JSON array of the delivered key strings, in the order they were answered. */
  keys: string;
  email: string | null;
  createdAt: number;
}

// ---- Script versions, variables, relay (contract §13) ----

/** The last versions of a script's code (contract §13.2); each points at an immutable blob in script_chunks. */
export interface ScriptVersionsTable {
  scriptId: string;
  /** 1, 2, … per script; never reused, so a restore always names the same code. */
  version: number;
  blobId: string;
  /** UTF-8 bytes. */
  size: number;
  /** Hex SHA-256 of the code, computed while it was stored. */
  sha256: string;
  createdAt: number;
}

/** A service's variables (contract §13.3), one JSON object of name → string per service. */
export interface ServiceVariablesTable {
  serviceId: string;
  variables: string;
  updatedAt: number;
}

/** Webhook relay messages per key and one-minute window (contract §13.3), counted here when Redis is not configured. */
export interface RelayWindowsTable {
  serviceId: string;
  /** SHA-256 of the license key: the count needs no key in clear. */
  keyDigest: string;
  /** Epoch ms, a multiple of 60,000. */
  windowStart: number;
  count: number;
}

// ---- Discord role, event webhooks (contract §12.3, §12.4) ----

/** Users the buyer role was granted to (and not since revoked): the role's state as Keyward last decided it. */
export interface DiscordRoleMembersTable {
  serviceId: string;
  chatId: string;
  grantedAt: number;
}

export interface EventEndpointsTable {
  id: string;
  serviceId: string;
  url: string;
  /** JSON array of event names, or ["*"]. */
  events: string;
  /** The signing secret (whsec_…), sealed; shown once when created. */
  secretSealed: string;
  createdAt: number;
}

/** One attempt to deliver an event to an endpoint; each endpoint keeps its last 50. */
export interface EventDeliveriesTable {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  ok: Flag;
  error: string | null;
  attemptedAt: number;
}

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
  auditLog: AuditLogTable;
  jobLeases: JobLeasesTable;
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
}
