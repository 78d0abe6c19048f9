import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { UUID_PATTERN } from '../../lib/random.ts';
import { containsIgnoringCase } from '../../db/search.ts';
import type { ScriptChunksTable, ScriptsTable, ScriptVersionsTable } from '../../db/schema.ts';

/** The columns a script record carries out of this repository (the code itself is in script_chunks). */
const SCRIPT_COLUMNS = [
  'id',
  'serviceId',
  'name',
  'obfuscationType',
  'visible',
  'status',
  'failureReason',
  'sourceBlob',
  'size',
  'outputBlob',
  'outputSize',
  'jobId',
  'leaseUntil',
  'createdAt',
  'updatedAt',
  'enabled',
  'heartbeat',
  'disabledMessage',
  'currentVersion',
  'outputSha256',
  'ffa',
  'silent',
  'executors',
] as const satisfies readonly (keyof ScriptsTable)[];

export type ScriptRow = Selectable<ScriptsTable>;

// Scripts are named by id or by name; a name may never look like a UUID, so the shape decides.
const isUuid = (value: string) => UUID_PATTERN.test(value);

export const insertScript = (db: Db, row: Insertable<ScriptsTable>) => db.insertInto('scripts').values(row).execute();

/** By id when the reference is UUID-shaped, else by name (names may never look like a UUID). */
export const findServiceScript = (db: Db, serviceId: string, idOrName: string) =>
  db
    .selectFrom('scripts')
    .select(SCRIPT_COLUMNS)
    .where('serviceId', '=', serviceId)
    .where(isUuid(idOrName) ? 'id' : 'name', '=', isUuid(idOrName) ? idOrName.toLowerCase() : idOrName)
    .executeTakeFirst();

export const findScript = (db: Db, id: string) => db.selectFrom('scripts').select(SCRIPT_COLUMNS).where('id', '=', id).executeTakeFirst();

export const nameTaken = async (db: Db, serviceId: string, name: string) =>
  (await db.selectFrom('scripts').select('id').where('serviceId', '=', serviceId).where('name', '=', name).executeTakeFirst()) !==
  undefined;

export const updateScript = (db: Db, id: string, patch: Updateable<ScriptsTable>) =>
  db.updateTable('scripts').set(patch).where('id', '=', id).executeTakeFirst();

export const deleteScript = (db: Db, id: string) => db.deleteFrom('scripts').where('id', '=', id).executeTakeFirst();

export async function pageScripts(db: Db, serviceId: string, opts: { search?: string; offset: number; limit: number }) {
  const base = db
    .selectFrom('scripts')
    .where('serviceId', '=', serviceId)
    .$if(Boolean(opts.search), (qb) => qb.where(containsIgnoringCase('name', opts.search!)));
  const [items, total] = await Promise.all([
    base.select(SCRIPT_COLUMNS).orderBy('createdAt', 'desc').orderBy('name').offset(opts.offset).limit(opts.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export const visibleScripts = (db: Db, serviceId: string) =>
  db.selectFrom('scripts').select(['id', 'name']).where('serviceId', '=', serviceId).where('visible', '=', 1).orderBy('name').execute();

// ---- background jobs ----

/** Jobs nobody holds: never leased, released at a clean shutdown, or whose holder stopped renewing. */
export const claimableJobs = (db: Db, now: number, limit: number) =>
  db
    .selectFrom('scripts')
    .select(['id', 'jobId'])
    .where('status', '=', 'processing')
    .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
    .orderBy('updatedAt')
    .limit(limit)
    .execute();

/** Takes the job if it is still this run and still free; the database settles races between instances. */
export const claimJob = (db: Db, id: string, jobId: string, now: number, leaseUntil: number) =>
  db
    .updateTable('scripts')
    .set({ leaseUntil })
    .where('id', '=', id)
    .where('jobId', '=', jobId)
    .where('status', '=', 'processing')
    .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
    .executeTakeFirst();

export const renewLease = (db: Db, id: string, jobId: string, leaseUntil: number) =>
  db.updateTable('scripts').set({ leaseUntil }).where('id', '=', id).where('jobId', '=', jobId).executeTakeFirst();

export const releaseJob = (db: Db, id: string, jobId: string) =>
  db.updateTable('scripts').set({ leaseUntil: null }).where('id', '=', id).where('jobId', '=', jobId).executeTakeFirst();

/** Writes a job's outcome only if the job is still the script's current run. */
export const finishJob = (db: Db, id: string, jobId: string, patch: Updateable<ScriptsTable>) =>
  db
    .updateTable('scripts')
    .set(patch)
    .where('id', '=', id)
    .where('jobId', '=', jobId)
    .where('status', '=', 'processing')
    .executeTakeFirst();

/** Chunks of script code (code-store.ts turns them into blobs). */
export const insertChunk = (db: Db, row: Insertable<ScriptChunksTable>) => db.insertInto('scriptChunks').values(row).execute();

export const findChunk = (db: Db, blobId: string, seq: number) =>
  db.selectFrom('scriptChunks').select('data').where('blobId', '=', blobId).where('seq', '=', seq).executeTakeFirst();

export const deleteChunks = (db: Db, blobId: string) => db.deleteFrom('scriptChunks').where('blobId', '=', blobId).execute();

// ---- versions (contract §13.2) ----

export const insertVersion = (db: Db, row: Insertable<ScriptVersionsTable>) => db.insertInto('scriptVersions').values(row).execute();

export async function latestVersion(db: Db, scriptId: string): Promise<number> {
  const row = await db
    .selectFrom('scriptVersions')
    .select((eb) => eb.fn.max('version').as('v'))
    .where('scriptId', '=', scriptId)
    .executeTakeFirst();
  return Number(row?.v ?? 0);
}

export const findVersion = (db: Db, scriptId: string, version: number) =>
  db.selectFrom('scriptVersions').selectAll().where('scriptId', '=', scriptId).where('version', '=', version).executeTakeFirst();

export const listVersions = (db: Db, scriptId: string) =>
  db
    .selectFrom('scriptVersions')
    .select(['version', 'sha256', 'size', 'createdAt'])
    .where('scriptId', '=', scriptId)
    .orderBy('version', 'desc')
    .execute();

/** Versions numbered at most `version`, with their blobs (for pruning). */
export const versionsUpTo = (db: Db, scriptId: string, version: number) =>
  db.selectFrom('scriptVersions').select(['version', 'blobId']).where('scriptId', '=', scriptId).where('version', '<=', version).execute();

export const allVersionBlobs = (db: Db, scriptId: string) =>
  db.selectFrom('scriptVersions').select('blobId').where('scriptId', '=', scriptId).execute();

export const deleteVersionsUpTo = (db: Db, scriptId: string, version: number) =>
  db.deleteFrom('scriptVersions').where('scriptId', '=', scriptId).where('version', '<=', version).execute();

/** Takes the script row's lock (PostgreSQL) or the write lock (SQLite) before a version number is chosen. */
export const touchScript = (db: Db, id: string, now: number) =>
  db.updateTable('scripts').set({ updatedAt: now }).where('id', '=', id).executeTakeFirst();
