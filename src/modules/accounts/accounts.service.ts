import type { AppContext } from '../../context.ts';
import type { Flag } from '../../db/schema.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { AppError, conflict, invalid, notFound } from '../../errors.ts';
import { hashPassword } from '../../lib/password.ts';
import { newId, randomAlphanumeric } from '../../lib/random.ts';
import { digest } from '../../lib/secrets.ts';
import { iso } from '../../lib/time.ts';
import { isUniqueViolation, type Db } from '../../db/database.ts';
import * as repo from './accounts.repository.ts';

export type Role = 'user' | 'moderator' | 'admin';
export const ROLES: readonly Role[] = ['user', 'moderator', 'admin'];
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,32}$/;
export const MIN_PASSWORD_LENGTH = 10;

export const newAccountKey = () => `kw_${randomAlphanumeric(40)}`;

export interface AccountView {
  id: string;
  username: string;
  role: Role;
  twoFactorEnabled: boolean;
  createdAt: string;
  /** The Discord user this account acts as in staff slash commands (contract §24.3). */
  discordUserId: string | null;
}

export function toAccountView(
  row: Pick<repo.AccountRow, 'id' | 'username' | 'role' | 'createdAt'> & { totpEnabled?: number; discordUserId?: string | null },
): AccountView {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    twoFactorEnabled: row.totpEnabled === 1,
    createdAt: iso(row.createdAt)!,
    discordUserId: row.discordUserId ?? null,
  };
}

/**
 * Links the account to a Discord user (contract §24.3), or unlinks it with null. One Discord user speaks for one
 * account (the unique index decides, so two accounts racing for one id cannot both win): a command's actor is never in
 * doubt.
 */
export async function setDiscordUser(ctx: AppContext, accountId: string, discordUserId: string | null): Promise<AccountView> {
  try {
    await repo.updateAccount(ctx.db, accountId, { discordUserId });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError('CONFLICT', 'This Discord user is already linked to another Keyward account; unlink it there first', {
        field: 'discordUserId',
      });
    }
    throw error;
  }
  const row = await repo.findAccountById(ctx.db, accountId);
  if (!row) throw notFound('Account');
  return toAccountView(row);
}

/** The enabled account linked to a Discord user, or undefined (a slash command's caller, contract §24.3). */
export const findAccountByDiscordUser = (db: Db, discordUserId: string) =>
  db
    .selectFrom('accounts')
    .select(['id', 'username'])
    .where('discordUserId', '=', discordUserId)
    .where('disabled', '=', 0)
    .executeTakeFirst();

export async function createAccount(ctx: AppContext, input: { username: string; password: string; role?: Role }) {
  const row = await newAccountRow(ctx, input);
  await insertNewAccount(ctx.db, row);
  return (await repo.findAccountById(ctx.db, row.id))!;
}

/**
 * A new account's row, checked and with its password hashed: the slow scrypt runs here, before any transaction opens,
 * so a caller that makes the account inside a larger change (an invite's register, contract §25) holds no lock for it.
 */
export async function newAccountRow(ctx: AppContext, input: { username: string; password: string; role?: Role }) {
  if (!USERNAME_PATTERN.test(input.username)) {
    throw invalid('username', 'username must be 3 to 32 characters of letters, digits, _ . -');
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw invalid('password', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const role = input.role ?? 'user';
  if (!ROLES.includes(role)) throw invalid('role', 'role must be one of user, moderator, admin');
  return {
    id: newId(),
    username: input.username,
    passwordHash: await hashPassword(input.password),
    role,
    disabled: 0 as const,
    apiKeyDigest: null,
    apiKeySealed: null,
    apiKeyCreatedAt: null,
    createdAt: ctx.clock(),
  };
}

/** Writes newAccountRow's row (in the caller's transaction, or alone); a taken username is the one 409 of register. */
export async function insertNewAccount(db: Db, row: Awaited<ReturnType<typeof newAccountRow>>) {
  try {
    await repo.insertAccount(db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`The username ${row.username} is taken`);
    throw error;
  }
}

/** The account key is created on first read; concurrent first reads converge on the one that landed. */
export async function revealAccountKey(ctx: AppContext, accountId: string): Promise<string> {
  const account = await repo.findAccountById(ctx.db, accountId);
  if (!account) throw notFound('Account');
  if (account.apiKeySealed) return ctx.sealer.open(account.apiKeySealed);
  const key = newAccountKey();
  await repo.setAccountKeyIfAbsent(ctx.db, accountId, digest(key), ctx.sealer.seal(key), ctx.clock());
  const stored = await repo.findAccountById(ctx.db, accountId);
  if (!stored?.apiKeySealed) throw new AppError('INTERNAL_ERROR', 'The account key could not be stored');
  return ctx.sealer.open(stored.apiKeySealed);
}

/** Replacing the digest is what revokes the old key: lookups are by digest, on every instance. */
export async function regenerateAccountKey(ctx: AppContext, accountId: string, actor: Actor): Promise<string> {
  const key = newAccountKey();
  const now = ctx.clock();
  await ctx.db.transaction().execute(async (trx) => {
    const result = await repo.updateAccount(trx, accountId, {
      apiKeyDigest: digest(key),
      apiKeySealed: ctx.sealer.seal(key),
      apiKeyCreatedAt: now,
    });
    if (Number(result.numUpdatedRows) === 0) throw notFound('Account');
    await recordAudit(trx, actor, { action: 'accountKey.regenerate', accountId, serviceId: null, target: null, details: {}, at: now });
  });
  return key;
}

/**
 * Account records for the other modules (auth, admin, the vault token), the auth plugin and the server's start-up
 * check, straight from the repository (executor first).
 */
export {
  anyAccountExists,
  findAccountById,
  findAccountByUsername,
  findAccountForSignIn,
  findEnabledAccountByKeyDigest,
  type AccountRow,
} from './accounts.repository.ts';

/** `keyward account reset-password` (the auth module, which also ends the account's sessions in the same transaction). */
export const setPasswordHash = (db: Db, id: string, passwordHash: string) => repo.updateAccount(db, id, { passwordHash });

/** Staff changes to an account (the admin module): its role, or whether it may sign in and use its key. */
export const updateAccountStanding = (ctx: AppContext, id: string, patch: { role?: Role; disabled?: Flag }) =>
  repo.updateAccount(ctx.db, id, patch);
