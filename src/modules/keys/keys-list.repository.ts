// The listing's queries (contract §7.2: filters, sort, search, count) and the export's batches, which use the same filters.
import { sql, type Expression, type ExpressionBuilder, type OrderByItemBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import {
  containsIgnoringCase,
  isSqlite,
  searchTextContains,
  searchTextSearchable,
  trigramRowids,
  trigramSearchable,
} from '../../db/search.ts';
import { LATEST_TIME_MS } from '../../lib/time.ts';
import { ACTIVE_KEY_COLUMNS, GENERATED_KEY_COLUMNS } from './keys.repository.ts';
import type { ActiveKeysTable, Database } from '../../db/schema.ts';

type KeyStatus = ActiveKeysTable['status'];

/** The list filters of contract §7.2, already parsed. `now` decides what "expired" means. */
export interface KeyFilter {
  type: 'active' | 'generated' | 'all';
  status?: KeyStatus;
  premium?: boolean;
  bound?: boolean;
  expired?: boolean;
  search?: string;
  /** Keys created by this account (contract §17: `?createdBy=`). */
  createdBy?: string;
  /** A reseller's scope: only the keys it created, whatever else the filter says. */
  scope?: string;
  now: number;
}

export type SortColumn = 'createdAt' | 'expiresAt' | 'lastUsedAt' | 'executions';
export interface KeySort {
  sort: SortColumn;
  order: 'asc' | 'desc';
}

type KeyTable = 'activeKeys' | 'generatedKeys';

/** The status a key has now (contract §19): a ban past its end counts as active (key-bans.ts says the same in code). */
function statusIs(eb: ExpressionBuilder<Database, KeyTable>, status: KeyStatus, now: number): Expression<SqlBool> {
  const lapsed = eb.and([eb('status', '=', 'banned'), eb('banExpiresAt', 'is not', null), eb('banExpiresAt', '<=', now)]);
  if (status === 'active') return eb.or([eb('status', '=', 'active'), lapsed]);
  if (status === 'banned') return eb.and([eb('status', '=', 'banned'), eb.not(lapsed)]);
  return eb('status', '=', status);
}

/** Conditions both tables share; the HWID parts differ and are added by the callers. */
function sharedConditions(eb: ExpressionBuilder<Database, KeyTable>, filter: KeyFilter): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [];
  if (filter.status !== undefined) where.push(statusIs(eb, filter.status, filter.now));
  if (filter.premium !== undefined) where.push(eb('isPremium', '=', filter.premium ? 1 : 0));
  if (filter.createdBy !== undefined) where.push(eb('createdBy', '=', filter.createdBy));
  if (filter.scope !== undefined) where.push(eb('createdBy', '=', filter.scope));
  if (filter.expired === true) where.push(eb.and([eb('expiresAt', 'is not', null), eb('expiresAt', '<=', filter.now)]));
  // Lifetime keys never expire. One comparison rather than an OR: SQLite would otherwise answer it through two
  // index probes and a table lookup per key, slower than reading the service's keys in order.
  if (filter.expired === false) where.push(eb(eb.fn.coalesce('expiresAt', eb.lit(LATEST_TIME_MS)), '>', filter.now));
  return where;
}

const textMatches = (table: KeyTable, search: string) => [
  containsIgnoringCase(`${table}.key`, search),
  containsIgnoringCase(`${table}.note`, search),
  containsIgnoringCase(`${table}.chatId`, search),
];

/** Does this filter select any key of the table at all? Generated keys are never bound. */
export const includesActive = (filter: KeyFilter) => filter.type !== 'generated';
export const includesGenerated = (filter: KeyFilter) => filter.type !== 'active' && filter.bound !== true;

/**
 * `search` on one table's own columns. With 3 characters or more a trigram index (migration 0012) picks the
 * candidate rows: on PostgreSQL the pg_trgm GIN indexes serve the LIKEs themselves; on SQLite the FTS5 table's
 * rowids come first. Either way the exact LIKEs decide, so the index changes the speed and never the answer.
 * Shorter terms read the service's keys, one substring test of `search_text` each (migration 0013).
 */
function textSearch(db: Db, table: KeyTable, search: string): Expression<SqlBool> {
  if (searchTextSearchable(search)) return searchTextContains(db, `${table}.searchText`, search);
  const likes = sql<SqlBool>`(${sql.join(textMatches(table, search), sql` or `)})`;
  if (!trigramSearchable(search) || !isSqlite(db)) return likes;
  const fts = table === 'activeKeys' ? 'active_keys_search' : 'generated_keys_search';
  return sql<SqlBool>`(${trigramRowids(table, fts, search)} and ${likes})`;
}

/**
 * Active keys matching `search` on key, note, chat id or any HWID. Short terms: one substring test of the key's
 * `search_text`, which holds its HWIDs too (the LIKE path, for a term holding the text's separator, makes one pass
 * over the service's HWIDs). Longer ones: only the keys the trigram indexes find, so neither database reads the
 * service's every key.
 */
function activeSearch(db: Db, eb: ExpressionBuilder<Database, 'activeKeys'>, serviceId: string, search: string) {
  if (searchTextSearchable(search)) return searchTextContains(db, 'activeKeys.searchText', search);
  const hwidMatch = (qb: ExpressionBuilder<Database, 'keyHwids'>) => {
    const like = containsIgnoringCase('keyHwids.hwid', search);
    return trigramSearchable(search) && isSqlite(db) ? qb.and([trigramRowids('keyHwids', 'key_hwids_search', search), like]) : like;
  };
  const byHwid = db.selectFrom('keyHwids').select('keyHwids.key').where('keyHwids.serviceId', '=', serviceId).where(hwidMatch);
  if (!trigramSearchable(search)) return eb.or([...textMatches('activeKeys', search), eb('activeKeys.key', 'in', byHwid)]);
  // SQLite answers this OR from both indexes at once (a multi-index OR), each row read once.
  if (isSqlite(db)) return eb.or([textSearch(db, 'activeKeys', search), eb('activeKeys.key', 'in', byHwid)]);
  // PostgreSQL cannot put a subquery under a BitmapOr, but it can an array: the HWID matches become one array
  // (an init plan) probed through the key's B-tree, next to the pg_trgm bitmap scans of the three columns.
  return eb.or([...textMatches('activeKeys', search), sql<SqlBool>`${sql.ref('activeKeys.key')} = any(array(${byHwid}))`]);
}

/**
 * Where a page or a count of a short search reads the service's keys. On SQLite, the index of migration 0036: the
 * term is tested on its entries and a key's row read only when it matches (a million keys: 75 ms against 175 through
 * the rows). SQLite does not choose it by itself: on `service_id` every index of the service ties, and it took one
 * that reads each row. A reseller's own keys (`createdBy`, the scope) are fewer, found through their own index.
 * Walks (export, the Luarmor list) keep the table: they read in key order and stop after a batch.
 */
function readFrom<T extends KeyTable>(db: Db, table: T, filter: KeyFilter, read: 'page' | 'walk'): T {
  const wholeService = readsEveryKey(filter) && filter.scope === undefined && filter.createdBy === undefined;
  if (read === 'walk' || !wholeService || !isSqlite(db)) return table;
  const name = table === 'activeKeys' ? 'active_keys' : 'generated_keys';
  // Kysely has no INDEXED BY: the FROM item is written out, named as the table so that its columns keep their names.
  return sql`${sql.table(name)} indexed by ${sql.raw(`${name}_service_search_text_idx`)}` as unknown as T;
}

function activeKeys(db: Db, serviceId: string, filter: KeyFilter, read: 'page' | 'walk' = 'walk') {
  return db
    .selectFrom(readFrom(db, 'activeKeys', filter, read))
    .where('activeKeys.serviceId', '=', serviceId)
    .where((eb) => {
      const where = sharedConditions(eb as unknown as ExpressionBuilder<Database, KeyTable>, filter);
      if (filter.bound !== undefined) where.push(eb('hwidCount', filter.bound ? '>' : '=', 0));
      if (filter.search !== undefined) where.push(activeSearch(db, eb, serviceId, filter.search));
      return eb.and(where);
    });
}

function generatedKeys(db: Db, serviceId: string, filter: KeyFilter, read: 'page' | 'walk' = 'walk') {
  return db
    .selectFrom(readFrom(db, 'generatedKeys', filter, read))
    .where('generatedKeys.serviceId', '=', serviceId)
    .where((eb) => {
      const where = sharedConditions(eb as unknown as ExpressionBuilder<Database, KeyTable>, filter);
      if (filter.search !== undefined) where.push(textSearch(db, 'generatedKeys', filter.search));
      return eb.and(where);
    });
}

export async function countKeys(db: Db, serviceId: string, filter: KeyFilter): Promise<number> {
  const [active, generated] = await Promise.all([
    includesActive(filter)
      ? activeKeys(db, serviceId, filter, 'page')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      : { n: 0 },
    includesGenerated(filter)
      ? generatedKeys(db, serviceId, filter, 'page')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      : { n: 0 },
  ]);
  return Number(active.n) + Number(generated.n);
}

/**
 * Does this filter read every key of the service (a search too short for the trigram indexes)? Then the page and the
 * count each read them all, and the caller asks for the count only when the page does not already tell it.
 */
export const readsEveryKey = (filter: KeyFilter) => filter.search !== undefined && searchTextSearchable(filter.search);

export interface PageEntry {
  type: 'active' | 'generated';
  key: string;
}

/**
 * One page of both kinds in one order. Each half selects (type, key, sort value) so the database merges two
 * index-ordered walks and stops after the page; the full rows of those ≤100 keys are read afterwards.
 * Missing values (a lifetime expiry, a key never used, a generated key's use) come last in either order.
 */
export async function pageOfKeys(
  db: Db,
  serviceId: string,
  filter: KeyFilter,
  sort: KeySort,
  limit: number,
  offset: number,
): Promise<PageEntry[]> {
  const nullable = sort.sort === 'expiresAt' || sort.sort === 'lastUsedAt';
  // Only nullable columns ask for NULLS LAST: an index walk cannot give it, and it would spoil the plan for the others.
  const bySort = (ob: OrderByItemBuilder) => {
    const directed = sort.order === 'asc' ? ob.asc() : ob.desc();
    return nullable ? directed.nullsLast() : directed;
  };
  // Each half is cut to the rows this page could need before the halves meet: each cut is an index walk that
  // stops early, and at most 2 × (offset + limit) rows are merged. (Neither database merges two index walks
  // under one ORDER BY on a UNION by itself: PostgreSQL 15 sorted a service's every key.)
  const needed = offset + limit;
  // A substring search matches few keys or many, and no index knows which: walking the sort index would look up
  // every key's row when few match (seconds on a million keys), so a search reads the matches and sorts them
  // instead (`+column` keeps both databases off the index).
  const sortColumn = (ref: string) => (filter.search === undefined ? sql.ref(ref) : sql`+${sql.ref(ref)}`);
  const active = activeKeys(db, serviceId, filter, 'page')
    .select([
      sql<'active' | 'generated'>`'active'`.as('type'),
      'activeKeys.key',
      sql.ref<number | null>(`activeKeys.${sort.sort}`).as('sortValue'),
    ])
    // The last-used index holds the hour (migration 0022): its walk gives the hours in order, and the few keys
    // of each hour are sorted by their exact time.
    .$if(sort.sort === 'lastUsedAt', (q) => q.orderBy(sortColumn('activeKeys.lastUsedHour'), bySort))
    .orderBy(sortColumn(`activeKeys.${sort.sort}`), bySort)
    .orderBy('activeKeys.key', sort.order)
    .limit(needed);
  const generatedColumn = sort.sort === 'createdAt' || sort.sort === 'expiresAt' ? sort.sort : null;
  // A generated key has no lastUsedAt (null) and no executions (0): within its half only the key orders it.
  const generated = generatedKeys(db, serviceId, filter, 'page')
    .select([
      sql<'active' | 'generated'>`'generated'`.as('type'),
      'generatedKeys.key',
      (generatedColumn
        ? sql.ref<number | null>(`generatedKeys.${generatedColumn}`)
        : sort.sort === 'executions'
          ? sql<number | null>`0`
          : sql<number | null>`cast(null as bigint)`
      ).as('sortValue'),
    ])
    .$if(generatedColumn !== null, (q) => q.orderBy(sortColumn(`generatedKeys.${generatedColumn!}`), bySort))
    .orderBy('generatedKeys.key', sort.order)
    .limit(needed);
  const halves = [includesActive(filter) ? active : null, includesGenerated(filter) ? generated : null].filter((q) => q !== null);
  if (halves.length === 0) return [];
  const [first, second] = halves.map((q, i) => db.selectFrom(q!.as(`half${i}`)).selectAll());
  const both = second ? first!.unionAll(second) : first!;
  const rows = await both.orderBy(sql.ref('sortValue'), bySort).orderBy(sql.ref('key'), sort.order).limit(limit).offset(offset).execute();
  return rows.map((row) => ({ type: row.type, key: row.key }));
}

export const activeRowsByKey = (db: Db, serviceId: string, keys: string[]) =>
  keys.length === 0
    ? Promise.resolve([])
    : db.selectFrom('activeKeys').select(ACTIVE_KEY_COLUMNS).where('serviceId', '=', serviceId).where('key', 'in', keys).execute();

export const generatedRowsByKey = (db: Db, serviceId: string, keys: string[]) =>
  keys.length === 0
    ? Promise.resolve([])
    : db.selectFrom('generatedKeys').select(GENERATED_KEY_COLUMNS).where('serviceId', '=', serviceId).where('key', 'in', keys).execute();

/** Export's walk: the next `limit` matching active keys after `after`, in key order (keyset, never an offset). */
export const activeBatchAfter = (db: Db, serviceId: string, filter: KeyFilter, after: string | null, limit: number) =>
  activeKeys(db, serviceId, filter)
    .selectAll('activeKeys')
    .$if(after !== null, (q) => q.where('activeKeys.key', '>', after!))
    .orderBy('activeKeys.key')
    .limit(limit)
    .execute();

export const generatedBatchAfter = (db: Db, serviceId: string, filter: KeyFilter, after: string | null, limit: number) =>
  generatedKeys(db, serviceId, filter)
    .selectAll('generatedKeys')
    .$if(after !== null, (q) => q.where('generatedKeys.key', '>', after!))
    .orderBy('generatedKeys.key')
    .limit(limit)
    .execute();

/** Exact-match filters of a walk beside the list's own (the Luarmor API's user_key, discord_id, identifier). */
export interface ExactFilter {
  key?: string;
  chatId?: string;
  /** Any of an active key's HWIDs; a generated key has none, so it never matches. */
  hwid?: string;
}

/** Where a walk oldest first stands: the last (createdAt, key) it answered. */
export interface OldestFirstCursor {
  createdAt: number;
  key: string;
}

/**
 * The next `limit` active keys after `after`, oldest first (ties by key): a keyset walk down the (service_id,
 * created_at, key) index, so each page costs the same however deep the walk is, and nothing is held between pages.
 */
export const activeOldestFirstAfter = (
  db: Db,
  serviceId: string,
  filter: KeyFilter & ExactFilter,
  after: OldestFirstCursor | null,
  limit: number,
) =>
  activeKeys(db, serviceId, filter)
    .select(ACTIVE_KEY_COLUMNS.map((column) => `activeKeys.${column}` as const))
    .$if(filter.key !== undefined, (q) => q.where('activeKeys.key', '=', filter.key!))
    .$if(filter.chatId !== undefined, (q) => q.where('activeKeys.chatId', '=', filter.chatId!))
    .$if(filter.hwid !== undefined, (q) =>
      q.where('activeKeys.key', 'in', (eb) =>
        eb
          .selectFrom('keyHwids')
          .select('keyHwids.key')
          .where('keyHwids.serviceId', '=', serviceId)
          .where('keyHwids.hwid', '=', filter.hwid!),
      ),
    )
    .$if(after !== null, (q) =>
      q.where((eb) => eb(eb.refTuple('activeKeys.createdAt', 'activeKeys.key'), '>', eb.tuple(after!.createdAt, after!.key))),
    )
    .orderBy('activeKeys.createdAt')
    .orderBy('activeKeys.key')
    .limit(limit)
    .execute();

/** The same walk over generated keys (activeOldestFirstAfter). */
export const generatedOldestFirstAfter = (
  db: Db,
  serviceId: string,
  filter: KeyFilter & ExactFilter,
  after: OldestFirstCursor | null,
  limit: number,
) =>
  generatedKeys(db, serviceId, filter)
    .select(GENERATED_KEY_COLUMNS.map((column) => `generatedKeys.${column}` as const))
    .$if(filter.key !== undefined, (q) => q.where('generatedKeys.key', '=', filter.key!))
    .$if(filter.chatId !== undefined, (q) => q.where('generatedKeys.chatId', '=', filter.chatId!))
    .$if(after !== null, (q) =>
      q.where((eb) => eb(eb.refTuple('generatedKeys.createdAt', 'generatedKeys.key'), '>', eb.tuple(after!.createdAt, after!.key))),
    )
    .orderBy('generatedKeys.createdAt')
    .orderBy('generatedKeys.key')
    .limit(limit)
    .execute();
