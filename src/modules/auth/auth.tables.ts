import type { Generated } from 'kysely';
import type { Flag } from '../../db/types.ts';

/** Sign-in state kept on the account row and the tables of migration 0002 (sessions, captcha replay guard). */
declare module '../../db/types.ts' {
  interface AccountsTable {
    totpEnabled: Generated<Flag>;
    /** The TOTP secret sealed with ctx.sealer; set by setup, confirmed by enable. */
    totpSecretSealed: string | null;
    /** The last accepted 30-second step: a code is good once. */
    totpLastStep: number | null;
    failedLoginCount: Generated<number>;
    loginLockedUntil: number | null;
  }

  interface Database {
    sessions: SessionsTable;
    captchaUses: CaptchaUsesTable;
    loginFailures: LoginFailuresTable;
  }
}

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
