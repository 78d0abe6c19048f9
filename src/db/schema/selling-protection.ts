import type { ColumnType } from 'kysely';
import type { Flag } from './accounts-keys.ts';

// Table shapes: Signed answers, selling (products, shop orders), script versions, variables, the relay, the Discord role and events.

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
  /** Copied to the keys the product delivers; 0 = no limit (contract §18). */
  maxSessions: ColumnType<number, number | undefined, number>;
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
  /** When Discord last answered a grant with 2xx; null while none did (only these count as holding the role). */
  confirmedAt: ColumnType<number | null, number | null | undefined, number | null>;
  /** Grants Discord refused (403, 404, 401) in a row; the sweep's delay grows with it. */
  refusals: ColumnType<number, number | undefined, number>;
  /** When the sweep sends a refused grant again; null when none is due. */
  retryAt: ColumnType<number | null, number | null | undefined, number | null>;
  lastError: ColumnType<string | null, string | null | undefined, string | null>;
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
