import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError, conflict, invalid, unauthorized } from '../../errors.ts';
import { consumeCaptcha } from './captcha.ts';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../lib/password.ts';
import { digest } from '../../lib/secrets.ts';
import { newSessionToken, sessionDigest } from '../../lib/session.ts';
import { newTotpSecret, totpStep, totpUri } from '../../lib/totp.ts';
import * as accounts from '../accounts/accounts.service.ts';
import { createAccount, toAccountView, type AccountView } from '../accounts/accounts.service.ts';
import * as repo from './auth.repository.ts';
import * as sessions from './sessions.repository.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { SYSTEM_ACTOR, type Actor } from '../audit/actor.ts';
import { issueStepToken, readStepToken } from './two-factor-step.ts';

/** After this many failures in a row an account refuses sign-in for a while, doubling each further failure. */
export const LOCK_AFTER_FAILURES = 5;
export const FIRST_LOCK_MS = 30_000;
export const MAX_LOCK_MS = 3_600_000;

export const lockDurationMs = (failures: number): number =>
  failures < LOCK_AFTER_FAILURES ? 0 : Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (failures - LOCK_AFTER_FAILURES));

const BAD_CREDENTIALS = 'The username or password is wrong';

/**
 * The per-username lockout (contract §10), told apart from the per-address limits (§5) by its reason: only this one
 * is lifted by signing in with the account key, and the sign-in page says so only for it.
 */
const accountLocked = (retryAfter: number) =>
  new AppError('RATE_LIMITED', `Too many failed sign-ins; try again in ${retryAfter} seconds`, { retryAfter, reason: 'account-locked' });

export async function register(ctx: AppContext, input: { username: string; password: string; captcha: string }): Promise<AccountView> {
  if (ctx.config.registration !== 'open') {
    throw new AppError('REGISTRATION_CLOSED', 'Registration is closed on this server; an operator creates accounts with the CLI');
  }
  await consumeCaptcha(ctx, input.captcha);
  return toAccountView(await createAccount(ctx, { username: input.username, password: input.password }));
}

export interface LoginInput {
  username?: string;
  password?: string;
  totp?: string;
  apiKey?: string;
  stepToken?: string;
  captcha?: string;
}

/** A failed sign-in to an existing account is in that account's log; the caller is not known, so an end user. */
async function failLogin(
  ctx: AppContext,
  accountId: string,
  now: number,
  error: AppError,
  ip: string | null,
  reason: string,
): Promise<never> {
  await ctx.db.transaction().execute(async (trx) => {
    const failures = await repo.countFailedLogin(trx, accountId);
    const lockMs = lockDurationMs(failures);
    if (lockMs > 0) await repo.lockLogins(trx, accountId, now + lockMs);
    const actor: Actor = { kind: 'end-user', accountId: null, ip };
    await recordAudit(trx, actor, {
      action: 'login.failed',
      accountId,
      serviceId: null,
      target: null,
      details: { reason, lockedForSeconds: lockMs / 1000 },
      at: now,
    });
  });
  throw error;
}

/** A name with no account fails and locks exactly like one that has (contract §10: the answers must not differ). */
async function failUnknownLogin(ctx: AppContext, username: string, now: number, error: AppError): Promise<never> {
  const failures = await repo.countUnknownLoginFailure(ctx.db, username, now);
  const lockMs = lockDurationMs(failures);
  if (lockMs > 0) await repo.lockUnknownLogins(ctx.db, username, now + lockMs);
  throw error;
}

/** Checks the credentials and opens a session; the captcha is spent first, whatever the outcome. */
export async function login(
  ctx: AppContext,
  input: LoginInput,
  ip: string | null,
): Promise<{ account: AccountView; sessionToken: string }> {
  if (input.stepToken !== undefined) return loginWithCode(ctx, input, ip);
  const byKey = input.apiKey !== undefined;
  const byPassword = input.username !== undefined || input.password !== undefined;
  if (byKey === byPassword) throw invalid('apiKey', 'Send either username and password, or apiKey');
  if (byPassword && input.username === undefined) throw invalid('username', 'username is required');
  if (byPassword && input.password === undefined) throw invalid('password', 'password is required');
  if (byKey && input.totp !== undefined) throw invalid('totp', 'totp is only used with username and password');
  await consumeCaptcha(ctx, input.captcha);
  const now = ctx.clock();

  if (byKey) {
    // The account key is 40 random characters: guessing is hopeless, so it skips two-factor (spec).
    const account = input.apiKey!.startsWith('kw_')
      ? await accounts.findEnabledAccountByKeyDigest(ctx.db, digest(input.apiKey!))
      : undefined;
    if (!account) throw unauthorized('The account key is not valid');
    const actor: Actor = { kind: 'account-key', accountId: account.id, ip, username: account.username };
    return { account: toAccountView(account), sessionToken: await openSession(ctx, account.id, actor, 'accountKey') };
  }

  // The lock applies to password sign-in only: the owner can always sign in with the account key above.
  // Sign-in ignores case; so does the lockout of names that have no account (FRANK and frank are one name).
  const account = await accounts.findAccountForSignIn(ctx.db, input.username!);
  const unknownName = input.username!.toLowerCase();
  const lockedUntil = account ? account.loginLockedUntil : await repo.unknownLoginLockedUntil(ctx.db, unknownName);
  if (lockedUntil && lockedUntil > now) {
    const retryAfter = Math.max(1, Math.ceil((lockedUntil - now) / 1000));
    throw accountLocked(retryAfter);
  }
  // An unknown user costs the same scrypt as a known one, so timing does not tell them apart.
  const passwordOk = await verifyPassword(input.password!, account?.passwordHash ?? (await dummyPasswordHash()));
  if (!account) return failUnknownLogin(ctx, unknownName, now, unauthorized(BAD_CREDENTIALS));
  if (account.disabled === 1) return failLogin(ctx, account.id, now, unauthorized(BAD_CREDENTIALS), ip, 'disabled');
  if (!passwordOk) return failLogin(ctx, account.id, now, unauthorized(BAD_CREDENTIALS), ip, 'password');

  if (account.totpEnabled === 1 && account.totpSecretSealed) {
    if (input.totp === undefined) {
      // The password was right: the step token lets the code follow alone (no password, no second captcha).
      throw new AppError('TOTP_REQUIRED', 'Two-factor authentication is on: enter the 6-digit code from your app', {
        stepToken: issueStepToken(ctx.config.secret, account.id, now),
      });
    }
    const step = totpStep(ctx.sealer.open(account.totpSecretSealed), input.totp, now);
    if (step === null || !(await repo.claimTotpStep(ctx.db, account.id, step))) {
      return failLogin(ctx, account.id, now, unauthorized('The two-factor code is wrong or was already used'), ip, 'twoFactor');
    }
  }
  if (account.failedLoginCount > 0 || account.loginLockedUntil !== null) await repo.clearFailedLogins(ctx.db, account.id);
  const actor: Actor = { kind: 'session', accountId: account.id, ip, username: account.username };
  return { account: toAccountView(account), sessionToken: await openSession(ctx, account.id, actor, 'password') };
}

/**
 * The second step of a two-factor sign-in: the step token proves the password was right moments ago, so only
 * the code is checked (spent once; a wrong one counts towards the lockout like a wrong password).
 */
async function loginWithCode(
  ctx: AppContext,
  input: LoginInput,
  ip: string | null,
): Promise<{ account: AccountView; sessionToken: string }> {
  if (input.password !== undefined || input.apiKey !== undefined)
    throw invalid('stepToken', 'stepToken replaces the password: send username, stepToken and totp');
  if (input.username === undefined) throw invalid('username', 'username is required');
  if (input.totp === undefined) throw invalid('totp', 'totp is required with stepToken');
  const now = ctx.clock();
  const accountId = readStepToken(ctx.config.secret, input.stepToken!, now);
  const account = await accounts.findAccountByUsername(ctx.db, input.username);
  const expired = unauthorized('The sign-in took too long; enter your password again');
  if (!accountId || !account || account.id !== accountId || account.disabled === 1 || !account.totpSecretSealed) throw expired;
  if (account.loginLockedUntil && account.loginLockedUntil > now) {
    const retryAfter = Math.max(1, Math.ceil((account.loginLockedUntil - now) / 1000));
    throw accountLocked(retryAfter);
  }
  const step = totpStep(ctx.sealer.open(account.totpSecretSealed), input.totp, now);
  if (step === null || !(await repo.claimTotpStep(ctx.db, account.id, step))) {
    return failLogin(ctx, account.id, now, unauthorized('The two-factor code is wrong or was already used'), ip, 'twoFactor');
  }
  if (account.failedLoginCount > 0 || account.loginLockedUntil !== null) await repo.clearFailedLogins(ctx.db, account.id);
  const actor: Actor = { kind: 'session', accountId: account.id, ip, username: account.username };
  return { account: toAccountView(account), sessionToken: await openSession(ctx, account.id, actor, 'password') };
}

/** Opens a dashboard session and writes its `login` entry in the same transaction. */
async function openSession(ctx: AppContext, accountId: string, actor: Actor, method: 'password' | 'accountKey'): Promise<string> {
  return ctx.db.transaction().execute((trx) => openSessionIn(ctx, trx, accountId, actor, method));
}

/** openSession in the caller's transaction: an invite's register (contract §25) signs the new account in with it. */
export async function openSessionIn(ctx: AppContext, trx: Db, accountId: string, actor: Actor, method: 'password' | 'accountKey') {
  const token = newSessionToken();
  const now = ctx.clock();
  await sessions.deleteExpiredSessions(trx, now);
  await sessions.insertSession(trx, {
    tokenDigest: sessionDigest(token),
    accountId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + ctx.config.signin.sessionAbsoluteHours * 3_600_000,
  });
  await recordAudit(trx, actor, { action: 'login', accountId, serviceId: null, target: null, details: { method }, at: now });
  return token;
}

export const closeSession = (ctx: AppContext, token: string) => sessions.deleteSession(ctx.db, sessionDigest(token));

async function signedInAccount(ctx: AppContext, accountId: string) {
  const account = await accounts.findAccountById(ctx.db, accountId);
  if (!account) throw unauthorized('Sign in first');
  return account;
}

/** Starts (or restarts) two-factor setup: a fresh secret, sealed, that counts only once enabled with a code. */
export async function setupTwoFactor(ctx: AppContext, accountId: string) {
  const account = await signedInAccount(ctx, accountId);
  if (account.totpEnabled === 1) throw conflict('Two-factor authentication is already on; disable it first');
  const secret = newTotpSecret();
  const result = await repo.storePendingTotpSecret(ctx.db, accountId, ctx.sealer.seal(secret));
  if (Number(result.numUpdatedRows) === 0) throw conflict('Two-factor authentication is already on; disable it first');
  return { secret, otpauthUri: totpUri(secret, account.username) };
}

async function requireCode(ctx: AppContext, accountId: string, sealed: string, code: string) {
  const step = totpStep(ctx.sealer.open(sealed), code, ctx.clock());
  if (step === null || !(await repo.claimTotpStep(ctx.db, accountId, step))) {
    throw invalid('totp', 'totp is wrong or was already used');
  }
}

export async function enableTwoFactor(ctx: AppContext, accountId: string, code: string, actor: Actor) {
  const account = await signedInAccount(ctx, accountId);
  if (account.totpEnabled === 1) throw conflict('Two-factor authentication is already on');
  if (!account.totpSecretSealed) throw conflict('Call POST /api/v1/account/2fa/setup first');
  await requireCode(ctx, accountId, account.totpSecretSealed, code);
  await setTwoFactor(ctx, accountId, true, actor);
  return { twoFactorEnabled: true };
}

export async function disableTwoFactor(ctx: AppContext, accountId: string, code: string, actor: Actor) {
  const account = await signedInAccount(ctx, accountId);
  if (account.totpEnabled !== 1 || !account.totpSecretSealed) throw conflict('Two-factor authentication is not on');
  await requireCode(ctx, accountId, account.totpSecretSealed, code);
  await setTwoFactor(ctx, accountId, false, actor);
  return { twoFactorEnabled: false };
}

function setTwoFactor(ctx: AppContext, accountId: string, enabled: boolean, actor: Actor) {
  return ctx.db.transaction().execute(async (trx) => {
    await repo.setTotpEnabled(trx, accountId, enabled);
    const action = enabled ? 'twoFactor.enable' : 'twoFactor.disable';
    await recordAudit(trx, actor, { action, accountId, serviceId: null, target: null, details: {}, at: ctx.clock() });
  });
}

/** Signs every session of an account out (the admin module, when it disables one). */
export const endAccountSessions = (ctx: AppContext, accountId: string) => sessions.deleteAccountSessions(ctx.db, accountId);

/**
 * `keyward account reset-password`: the operator's way back in for a forgotten password. The new password replaces
 * the old one, the sign-in lock is lifted, and every session of the account ends (whoever knew the old password is
 * out), in one transaction. The account key is left alone: it is a separate secret with its own regenerate.
 */
export async function resetPassword(ctx: AppContext, input: { username: string; password: string }): Promise<{ endedSessions: number }> {
  if (input.password.length < accounts.MIN_PASSWORD_LENGTH) {
    throw invalid('password', `password must be at least ${accounts.MIN_PASSWORD_LENGTH} characters`);
  }
  const account = await accounts.findAccountByUsername(ctx.db, input.username);
  if (!account) throw new AppError('NOT_FOUND', `There is no account named ${input.username}`);
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction().execute(async (trx) => {
    await accounts.setPasswordHash(trx, account.id, passwordHash);
    await repo.clearFailedLogins(trx, account.id);
    const ended = await sessions.deleteAccountSessions(trx, account.id);
    await recordAudit(trx, SYSTEM_ACTOR, {
      action: 'password.reset',
      accountId: account.id,
      serviceId: null,
      target: null,
      details: {},
      at: ctx.clock(),
    });
    return { endedSessions: Number(ended[0]?.numDeletedRows ?? 0) };
  });
}

/** For the auth plugin, which reads the session named by a request's cookie and keeps it alive. */
export { findLiveSession, touchSession } from './sessions.repository.ts';

/** The proof-of-work challenge of the public pages (key system, HWID reset page) as well as sign-in. */
export { consumeCaptcha, issueCaptcha } from './captcha.ts';

/** The session cookie's one setter, for a route of another module that signs a browser in (an invite's register). */
export { setSessionCookie } from './session-cookie.ts';
