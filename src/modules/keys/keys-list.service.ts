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
 * The rows (not the views) of keys `offset`…`offset + limit`, oldest first, with the list's `search`: for callers that
 * show keys in another shape (the Luarmor-compatible API's user records, contract §16.1).
 */
export async function keyRowsOldestFirst(ctx: AppContext, serviceId: string, search: string | undefined, offset: number, limit: number) {
  const filter = filterOf({ search }, ctx.clock());
  const entries = await repo.pageOfKeys(ctx.db, serviceId, filter, { sort: 'createdAt', order: 'asc' }, limit, offset);
  const [active, generated] = await Promise.all([
    repo
      .activeRowsByKey(
        ctx.db,
        serviceId,
        entries.filter((e) => e.type === 'active').map((e) => e.key),
      )
      .then((rows) => withHwids(ctx.db, rows)),
    repo.generatedRowsByKey(
      ctx.db,
      serviceId,
      entries.filter((e) => e.type === 'generated').map((e) => e.key),
    ),
  ]);
  const rows = new Map<string, KeyRowEntry>();
  for (const row of active) rows.set(row.key, { type: 'active', row });
  for (const row of generated) rows.set(row.key, { type: 'generated', row });
  return entries.map((e) => rows.get(e.key)).filter((r) => r !== undefined);
}

/** How many keys a filter matches (the CLI's export progress). */
export { countKeys as countFilteredKeys } from './keys-list.repository.ts';
