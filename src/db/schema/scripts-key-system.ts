import type { ColumnType, Generated } from 'kysely';
import type { Flag } from './accounts-keys.ts';

// Table shapes: Scripts and their code, the vault, short links, and the key system.

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
  /** Every run opens a live session and heartbeats (contract §18). */
  heartbeat: Generated<Flag>;
  disabledMessage: string | null;
  /** The script_versions row whose blob is sourceBlob. */
  currentVersion: Generated<number>;
  /** Hex SHA-256 of outputBlob (what fetch serves); null while there is none. */
  outputSha256: string | null;
  /** Contract §16.3: free for all (runs without a key) and silent (the loader prints nothing). Migration 0024. */
  ffa: Generated<Flag>;
  silent: Generated<Flag>;
  /** Contract §29: JSON of { allow: [names] } or { deny: [names] }, null for any executor. Migration 0032. */
  executors: ColumnType<string | null, string | null | undefined, string | null>;
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
