// The key listing (contract §7.2): filters, sort, search and one page of active and generated keys together.
import type { AppContext } from '../../context.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import * as repo from './keys-list.repository.ts';
import { resellerScope, type Actor } from '../audit/actor.ts';
import { withHwids } from './keys.repository.ts';
import { toActiveKeyView, toGeneratedKeyView, type KeyStatus } from './keys.service.ts';

/** Filter values as the query string carries them; the schema has checked each is one of its words. */
export interface FilterQuery {
  type?: 'active' | 'generated' | 'all';
  status?: KeyStatus;
  premium?: 'true' | 'false';
  bound?: 'true' | 'false';
  expired?: 'true' | 'false';
  search?: string;
  createdBy?: string;
}

const flagOf = (text: 'true' | 'false' | undefined) => (text === undefined ? undefined : text === 'true');

export const filterOf = (query: FilterQuery, now: number): repo.KeyFilter => ({
  type: query.type ?? 'all',
  status: query.status,
  premium: flagOf(query.premium),
  bound: flagOf(query.bound),
  expired: flagOf(query.expired),
  search: query.search,
  createdBy: query.createdBy,
  now,
});

export type ListedKey =
  ({ type: 'active' } & ReturnType<typeof toActiveKeyView>) | ({ type: 'generated' } & ReturnType<typeof toGeneratedKeyView>);

/**
 * A short search reads every key of the service, once for the page and once more for the count. A page that is not
 * full is the last one: offset + its length is the count, and the second read is skipped (a 1–2 character term
 * mostly matches few keys or none). Only a full page, or an empty one past the first, still counts.
 */
async function pageThenTotal(ctx: AppContext, serviceId: string, filter: repo.KeyFilter, sort: repo.KeySort, request: PageRequest) {
  const entries = await repo.pageOfKeys(ctx.db, serviceId, filter, sort, request.limit, request.offset);
  const lastPage = entries.length > 0 ? entries.length < request.limit : request.offset === 0;
  return [entries, lastPage ? request.offset + entries.length : await repo.countKeys(ctx.db, serviceId, filter)] as const;
}

export async function listKeys(
  ctx: AppContext,
  serviceId: string,
  query: FilterQuery & { sort?: repo.SortColumn; order?: 'asc' | 'desc' },
  request: PageRequest,
  actor?: Actor,
) {
  // A reseller lists only the keys it created (contract §17).
  const scope = actor ? resellerScope(actor) : null;
  const filter = { ...filterOf(query, ctx.clock()), ...(scope !== null && { scope }) };
  const sort: repo.KeySort = { sort: query.sort ?? 'createdAt', order: query.order ?? 'desc' };
  const [entries, total] = repo.readsEveryKey(filter)
    ? await pageThenTotal(ctx, serviceId, filter, sort, request)
    : await Promise.all([
        repo.pageOfKeys(ctx.db, serviceId, filter, sort, request.limit, request.offset),
        repo.countKeys(ctx.db, serviceId, filter),
      ]);
  const activeKeys = entries.filter((e) => e.type === 'active').map((e) => e.key);
  const generatedKeys = entries.filter((e) => e.type === 'generated').map((e) => e.key);
  const [active, generated] = await Promise.all([
    repo.activeRowsByKey(ctx.db, serviceId, activeKeys).then((rows) => withHwids(ctx.db, rows)),
    repo.generatedRowsByKey(ctx.db, serviceId, generatedKeys),
  ]);
  const views = new Map<string, ListedKey>();
  for (const row of active) views.set(row.key, { type: 'active', ...toActiveKeyView(row, filter.now) });
  for (const row of generated) views.set(row.key, { type: 'generated', ...toGeneratedKeyView(row, filter.now) });
  // A key deleted between the two reads simply drops out of this page.
  const items = entries.map((e) => views.get(e.key)).filter((v) => v !== undefined);
  return pageOf(items, total, request);
}

export type KeyRowEntry =
  | { type: 'active'; row: Awaited<ReturnType<typeof withHwids>>[number] }
  | { type: 'generated'; row: Awaited<ReturnType<typeof repo.generatedRowsByKey>>[number] };

/**
 * One walked row. A class, not an object literal, so that V8 never makes it straight in the old generation, where it
 * would hold its young row alive until a full collection (LuarmorUser in luarmor.translate.ts says how).
 */
class WalkedRow<T extends KeyRowEntry['type'], R> {
  constructor(
    readonly type: T,
    readonly row: R,
  ) {}
}

/** What a walk of every matching key oldest first selects (the Luarmor API's user list, contract §23). */
export interface OldestFirstQuery extends repo.ExactFilter {
  search?: string;
  /** Skip this many matches first; stop after `until` matches in all (undefined: to the end). */
  from: number;
  until?: number;
}

// Small enough that a page is written out before the young generation's next scavenge: with 1,000 rows a page's rows
// outlived two scavenges, were promoted and piled up in the old space until a full collection (bench/luarmor-users-1m.ts
// on SQLite: peak RSS growth 146 MB at 48,000 users/s with 1,000; 2.4 MB at 80,000-85,000 users/s with 250).
const WALK_PAGE = 250;

/**
 * Every matching key oldest first, page by page from the database (a keyset walk of each table, merged here), so a
 * caller can stream a million keys while holding one page of each. A reseller's actor walks only the keys it created
 * (contract §17), whichever filter is given.
 */
export async function* walkKeyRowsOldestFirst(
  ctx: AppContext,
  serviceId: string,
  query: OldestFirstQuery,
  actor: Actor,
): AsyncGenerator<KeyRowEntry> {
  const scope = resellerScope(actor);
  const filter = {
    ...filterOf({ search: query.search }, ctx.clock()),
    ...(scope !== null && { scope }),
    key: query.key,
    chatId: query.chatId,
    hwid: query.hwid,
  };
  const walk = async function* <T extends { createdAt: number; key: string }>(
    page: (after: repo.OldestFirstCursor | null) => Promise<T[]>,
  ): AsyncGenerator<T> {
    let after: repo.OldestFirstCursor | null = null;
    for (;;) {
      const rows = await page(after);
      yield* rows;
      if (rows.length < WALK_PAGE) return;
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.createdAt, key: last.key };
    }
  };
  const active = walk((after) =>
    repo.activeOldestFirstAfter(ctx.db, serviceId, filter, after, WALK_PAGE).then((rows) => withHwids(ctx.db, rows)),
  );
  // An identifier only ever matches active keys.
  const generated = walk((after) =>
    filter.hwid === undefined ? repo.generatedOldestFirstAfter(ctx.db, serviceId, filter, after, WALK_PAGE) : Promise.resolve([]),
  );
  const limit = query.until ?? Infinity;
  let index = 0;
  let a = await active.next();
  let g = await generated.next();
  while ((!a.done || !g.done) && index < limit) {
    const takeActive =
      !a.done &&
      (g.done || a.value.createdAt < g.value.createdAt || (a.value.createdAt === g.value.createdAt && a.value.key < g.value.key));
    const entry: KeyRowEntry = takeActive ? new WalkedRow('active', a.value!) : new WalkedRow('generated', g.value!);
    if (takeActive) a = await active.next();
    else g = await generated.next();
    if (index++ >= query.from) yield entry;
  }
  await active.return(undefined);
  await generated.return(undefined);
}

/** How many keys a filter matches (the CLI's export progress). */
export { countKeys as countFilteredKeys } from './keys-list.repository.ts';
