import type { AppContext } from '../../context.ts';
import type { Db, Dialect } from '../../db/database.ts';
import { AppError, notFound } from '../../errors.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { newId, UUID_PATTERN } from '../../lib/random.ts';
import { iso } from '../../lib/time.ts';
import * as accounts from '../accounts/accounts.service.ts';
import { toAccountView, type Role } from '../accounts/accounts.service.ts';
import { endAccountSessions } from '../auth/auth.service.ts';
import * as repo from './admin.repository.ts';

/** The staff member acting: the auth hook has already checked they hold a signed-in moderator or admin session. */
export interface Staff {
  id: string;
  role: Role;
}

export const toStaffAccountView = (row: Parameters<typeof toAccountView>[0] & { disabled: number }) => ({
  ...toAccountView(row),
  disabled: row.disabled === 1,
});

export async function listAccounts(ctx: AppContext, page: PageRequest & { search?: string }) {
  const { items, total } = await repo.pageAccounts(ctx.db, page);
  return pageOf(items.map(toStaffAccountView), total, page);
}

export async function listServices(ctx: AppContext, page: PageRequest & { search?: string }) {
  const { items, total } = await repo.pageServices(ctx.db, page);
  return pageOf(
    items.map((s) => ({ ...s, createdAt: iso(s.createdAt)! })),
    total,
    page,
  );
}

async function targetAccount(ctx: AppContext, id: string) {
  const row = UUID_PATTERN.test(id) ? await accounts.findAccountById(ctx.db, id) : undefined;
  if (!row) throw notFound('Account');
  return row;
}

/**
 * Moderators act on plain users only; admins on anyone but themselves (nobody locks themselves out).
 * Disabling ends the account's sessions at once; its keys stop at once because every key lookup checks `disabled`.
 */
export async function setDisabled(ctx: AppContext, staff: Staff, id: string, disabled: boolean) {
  const target = await targetAccount(ctx, id);
  if (target.id === staff.id) throw new AppError('FORBIDDEN', 'You cannot disable or enable your own account');
  if (staff.role === 'moderator' && target.role !== 'user') throw new AppError('FORBIDDEN', 'Moderators can only act on user accounts');
  await accounts.updateAccountStanding(ctx, target.id, { disabled: disabled ? 1 : 0 });
  if (disabled) await endAccountSessions(ctx, target.id);
  return toStaffAccountView((await accounts.findAccountById(ctx.db, target.id))!);
}

export async function setRole(ctx: AppContext, staff: Staff, id: string, role: Role) {
  if (staff.role !== 'admin') throw new AppError('FORBIDDEN', 'Only admins can change roles');
  const target = await targetAccount(ctx, id);
  if (target.id === staff.id) throw new AppError('FORBIDDEN', 'You cannot change your own role');
  await accounts.updateAccountStanding(ctx, target.id, { role });
  return toStaffAccountView((await accounts.findAccountById(ctx.db, target.id))!);
}

/** A backup older than this is flagged in the dashboard: a week of keys is what a seller can afford to lose. */
export const BACKUP_STALE_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface BackupRun {
  finishedAt: number;
  sizeBytes: number;
  keyCount: number;
  databaseKind: Dialect;
}

/** Called by `keyward backup` once the snapshot is complete, on the database it snapshotted. */
export async function recordBackup(db: Db, run: BackupRun): Promise<void> {
  await repo.insertBackupRun(db, { id: newId(), ...run });
}

/** A backup record as stored, id included: `keyward restore` carries the replaced database's records over. */
export type StoredBackupRun = BackupRun & { id: string };

export const listBackupRuns = (db: Db): Promise<StoredBackupRun[]> => repo.allBackupRuns(db) as Promise<StoredBackupRun[]>;

export const restoreBackupRuns = (db: Db, runs: StoredBackupRun[]) => repo.insertBackupRunsIfAbsent(db, runs);

/**
 * Admins only: backups concern the whole server, and a moderator's job is accounts. `stale` is true when there is
 * no backup at all, or the last one is older than BACKUP_STALE_DAYS.
 */
export async function backupStatus(ctx: AppContext, staff: Staff) {
  if (staff.role !== 'admin') throw new AppError('FORBIDDEN', 'Only admins can see backups');
  const last = await repo.lastBackupRun(ctx.db);
  return {
    databaseKind: ctx.dialect,
    staleAfterDays: BACKUP_STALE_DAYS,
    stale: !last || ctx.clock() - last.finishedAt > BACKUP_STALE_DAYS * DAY_MS,
    lastBackup: last ? { ...last, finishedAt: iso(last.finishedAt)! } : null,
  };
}
