import type { Db } from '../../db/database.ts';
import type { Insertable } from 'kysely';
import type { BackupRunsTable } from '../../db/schema.ts';
import { containsIgnoringCase } from '../../db/search.ts';

export async function pageAccounts(db: Db, opts: { search?: string; offset: number; limit: number }) {
  const base = db.selectFrom('accounts').$if(Boolean(opts.search), (qb) => qb.where(containsIgnoringCase('username', opts.search!)));
  const [items, total] = await Promise.all([
    base
      .select(['id', 'username', 'role', 'disabled', 'totpEnabled', 'createdAt'])
      .orderBy('createdAt', 'asc')
      .orderBy('id')
      .offset(opts.offset)
      .limit(opts.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export async function pageServices(db: Db, opts: { search?: string; offset: number; limit: number }) {
  const base = db
    .selectFrom('services')
    .innerJoin('accounts', 'accounts.id', 'services.accountId')
    .$if(Boolean(opts.search), (qb) =>
      qb.where((eb) =>
        eb.or([containsIgnoringCase('services.name', opts.search!), containsIgnoringCase('services.identifier', opts.search!)]),
      ),
    );
  const [items, total] = await Promise.all([
    base
      .select([
        'services.id',
        'services.identifier',
        'services.name',
        'services.accountId',
        'accounts.username as ownerUsername',
        'services.createdAt',
      ])
      .orderBy('services.createdAt', 'asc')
      .orderBy('services.id')
      .offset(opts.offset)
      .limit(opts.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export async function insertBackupRun(db: Db, run: Insertable<BackupRunsTable>) {
  await db.insertInto('backupRuns').values(run).execute();
}

export const allBackupRuns = (db: Db) => db.selectFrom('backupRuns').selectAll().execute();

/** Rows already there (the snapshot's own history) are kept as they are. */
export async function insertBackupRunsIfAbsent(db: Db, runs: Insertable<BackupRunsTable>[]) {
  if (runs.length)
    await db
      .insertInto('backupRuns')
      .values(runs)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
}

export function lastBackupRun(db: Db) {
  return db
    .selectFrom('backupRuns')
    .select(['finishedAt', 'sizeBytes', 'keyCount', 'databaseKind'])
    .orderBy('finishedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
