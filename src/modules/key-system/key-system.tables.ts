import type { Flag } from '../../db/types.ts';

declare module '../../db/types.ts' {
  interface Database {
    keySystemSettings: KeySystemSettingsTable;
    keySystemSessions: KeySystemSessionsTable;
    keySystemTokens: KeySystemTokensTable;
    keySystemGrants: KeySystemGrantsTable;
  }
}

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
  /** `#rrggbb` for the get-key page's buttons and progress (0020); null: the dashboard's blue. */
  accentColor: string | null;
  /** 0 = no limit. */
  maxKeysPerAddressPerDay: number;
  updatedAt: number;
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
