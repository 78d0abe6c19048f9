import { plainSentence } from './lib/plain-words.ts';
/** Every failure a client can see. The code → status mapping lives only in statusOf(). */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'SERVICE_ID_REQUIRED'
  | 'UNAUTHORIZED'
  | 'TOTP_REQUIRED'
  | 'PERMISSION_DENIED'
  | 'IP_NOT_ALLOWED'
  | 'SESSION_REQUIRED'
  | 'FORBIDDEN'
  | 'CSRF_FAILED'
  | 'REGISTRATION_CLOSED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'WEBHOOK_DISABLED'
  | 'PAYLOAD_TOO_LARGE'
  | 'LIFETIME_KEY'
  | 'OBFUSCATOR_UNAVAILABLE'
  | 'HWID_RESET_COOLDOWN'
  | 'RATE_LIMITED'
  | 'WEBHOOK_DELIVERY_FAILED'
  | 'CHECKPOINT_FAILED'
  | 'KEY_SYSTEM_DISABLED'
  | 'KEY_SYSTEM_LIMIT'
  | 'PROVIDER_UNAVAILABLE'
  | 'KEY_REFUSED'
  | 'ROLE_FORBIDDEN'
  | 'QUOTA_EXCEEDED'
  | 'SESSION_LIMIT'
  | 'SESSION_ENDED'
  | 'INTERNAL_ERROR'
  | 'UNAVAILABLE';

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_ERROR':
    case 'SERVICE_ID_REQUIRED':
    case 'CHECKPOINT_FAILED':
      return 400;
    case 'UNAUTHORIZED':
    case 'TOTP_REQUIRED':
      return 401;
    case 'PERMISSION_DENIED':
    case 'IP_NOT_ALLOWED':
    case 'SESSION_REQUIRED':
    case 'FORBIDDEN':
    case 'CSRF_FAILED':
    case 'REGISTRATION_CLOSED':
    case 'KEY_REFUSED':
    case 'ROLE_FORBIDDEN':
    case 'QUOTA_EXCEEDED':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
    case 'WEBHOOK_DISABLED':
    case 'KEY_SYSTEM_DISABLED':
    case 'SESSION_LIMIT':
      return 409;
    case 'SESSION_ENDED':
      return 410;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'LIFETIME_KEY':
    case 'OBFUSCATOR_UNAVAILABLE':
      return 422;
    case 'HWID_RESET_COOLDOWN':
    case 'RATE_LIMITED':
    case 'KEY_SYSTEM_LIMIT':
      return 429;
    case 'WEBHOOK_DELIVERY_FAILED':
    case 'PROVIDER_UNAVAILABLE':
      return 502;
    case 'UNAVAILABLE':
      return 503;
    case 'INTERNAL_ERROR':
      return 500;
  }
}

export interface ErrorExtras {
  field?: string;
  /** TOTP_REQUIRED after a correct password: send it back with the code alone (auth/two-factor-step.ts). */
  stepToken?: string;
  retryAfter?: number;
  /** CHECKPOINT_FAILED: too-fast | token-invalid | token-reused. KEY_REFUSED: the validation code. */
  reason?: string;
  /** KEY_SYSTEM_LIMIT: when this address may earn its next key. */
  nextKeyAt?: string;
  /** Key import (contract §7.4): the records refused (VALIDATION_ERROR) or the keys that already exist (CONFLICT). */
  errors?: Array<{ index: number; field: string; error: string }>;
  duplicates?: string[];
  /** SESSION_LIMIT: the key's limit of live sessions (contract §18). */
  maxSessions?: number;
  /** SESSION_ENDED by a ban (contract §26): its reason and end, null when it has none. */
  banReason?: string | null;
  banEndsAt?: string | null;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly extras: ErrorExtras;

  constructor(code: ErrorCode, message: string, extras: ErrorExtras = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.extras = extras;
  }

  get status(): number {
    return statusOf(this.code);
  }
}

export const invalid = (field: string, message: string) => new AppError('VALIDATION_ERROR', plainSentence(message), { field });
/** For a sentence that quotes names as the seller must write them (a CSV file's column names): said as written. */
export const invalidAsWritten = (field: string, message: string) => new AppError('VALIDATION_ERROR', message, { field });
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const unauthorized = (message = 'A valid API key is required') => new AppError('UNAUTHORIZED', message);
export const permissionDenied = (flag: string) =>
  new AppError('PERMISSION_DENIED', `This API key is not permitted for this action (${flag})`);

export interface ErrorBody {
  success: false;
  error: string;
  code: ErrorCode;
  field?: string;
  retryAfter?: number;
  reason?: string;
  nextKeyAt?: string;
  errors?: Array<{ index: number; field: string; error: string }>;
  duplicates?: string[];
  maxSessions?: number;
  stepToken?: string;
  requestId?: string;
}
