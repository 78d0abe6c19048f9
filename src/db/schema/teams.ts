import type { ColumnType } from 'kysely';
import type { Flag } from './accounts-keys.ts';

// Table shapes: teams and resellers (contract §17, migration 0025).

export type MemberRole = 'manager' | 'support' | 'reseller';

/** An account that may use a service it does not own, in a role; the quota columns are set for resellers only. */
export interface ServiceMembersTable {
  serviceId: string;
  accountId: string;
  role: MemberRole;
  keysLeft: number | null;
  /** null: any duration. */
  maxDays: number | null;
  allowLifetime: ColumnType<Flag, Flag | undefined, Flag>;
  /** The reseller key policy (contract §25, migration 0034): the most HWIDs a reseller's key may bind. */
  maxHwids: ColumnType<number, number | undefined, number>;
  allowNoHwidValidation: ColumnType<Flag, Flag | undefined, Flag>;
  allowPremium: ColumnType<Flag, Flag | undefined, Flag>;
  /** The most devices running at once per key; null: the reseller chooses. */
  maxSessions: number | null;
  joinedAt: number;
}

/** A single-use invite: accepting it deletes the row. */
export interface ServiceInvitesTable {
  code: string;
  serviceId: string;
  role: MemberRole;
  keysLeft: number | null;
  maxDays: number | null;
  allowLifetime: ColumnType<Flag, Flag | undefined, Flag>;
  maxHwids: ColumnType<number, number | undefined, number>;
  allowNoHwidValidation: ColumnType<Flag, Flag | undefined, Flag>;
  allowPremium: ColumnType<Flag, Flag | undefined, Flag>;
  maxSessions: number | null;
  createdAt: number;
  expiresAt: number;
}

/** An interaction id acted on (contract §28): Discord's retry of it finds the row and does nothing twice. */
export interface ChatInteractionsTable {
  id: string;
  serviceId: string;
  /** The JSON answered to the first delivery; null while deferred work is under way. */
  answer: string | null;
  createdAt: number;
}

/** Refusals counted per subject (a key) and UTC hour, for notices that go out at a threshold (contract §24.4). */
export interface ChatNoticeCountsTable {
  serviceId: string;
  subject: string;
  hour: number;
  count: number;
}
