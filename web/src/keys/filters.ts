// The keys table's state lives in the URL (contract §9: search, filters, sort and pagination in the
// URL), so a reload, a shared link or the back button shows the same page. Pure: unit-tested.

export type KeyType = 'all' | 'active' | 'generated';
export type KeyStatusFilter = '' | 'active' | 'paused' | 'banned';
export type TriState = '' | 'true' | 'false';
export type SortField = 'createdAt' | 'expiresAt' | 'lastUsedAt' | 'executions';
export type SortOrder = 'desc' | 'asc';

export interface KeyFilters {
  type: KeyType;
  status: KeyStatusFilter;
  premium: TriState;
  bound: TriState;
  expired: TriState;
  search: string;
  sort: SortField;
  order: SortOrder;
  page: number;
  limit: number;
}

export const PAGE_SIZES = [20, 50, 100] as const;

export const DEFAULT_FILTERS: KeyFilters = {
  type: 'all',
  status: '',
  premium: '',
  bound: '',
  expired: '',
  search: '',
  sort: 'createdAt',
  order: 'desc',
  page: 1,
  limit: 20,
};

const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
  value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;

const positiveInt = (value: string | null, fallback: number, max: number): number => {
  if (value === null || !/^[1-9][0-9]{0,8}$/.test(value)) return fallback;
  return Math.min(Number(value), max);
};

/** Reads the state from the address; anything unknown or malformed falls back to the default. */
export function parseKeyFilters(params: URLSearchParams): KeyFilters {
  const limit = Number(params.get('limit'));
  return {
    type: oneOf(params.get('type'), ['all', 'active', 'generated'] as const, 'all'),
    status: oneOf(params.get('status'), ['', 'active', 'paused', 'banned'] as const, ''),
    premium: oneOf(params.get('premium'), ['', 'true', 'false'] as const, ''),
    bound: oneOf(params.get('bound'), ['', 'true', 'false'] as const, ''),
    expired: oneOf(params.get('expired'), ['', 'true', 'false'] as const, ''),
    search: (params.get('search') ?? '').slice(0, 256),
    sort: oneOf(params.get('sort'), ['createdAt', 'expiresAt', 'lastUsedAt', 'executions'] as const, 'createdAt'),
    order: oneOf(params.get('order'), ['desc', 'asc'] as const, 'desc'),
    page: positiveInt(params.get('page'), 1, 1_000_000),
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_FILTERS.limit,
  };
}

/** Writes only what differs from the defaults, in a fixed order, so equal states give equal URLs. */
export function keyFiltersToParams(filters: KeyFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of Object.keys(DEFAULT_FILTERS) as Array<keyof KeyFilters>) {
    const value = name === 'search' ? filters.search.trim() : filters[name];
    if (value !== DEFAULT_FILTERS[name] && value !== '') params.set(name, String(value));
  }
  return params;
}

/**
 * A change of anything but the page starts again at page 1: page 7 of the old filter means nothing
 * for the new one.
 */
export function updateKeyFilters(current: KeyFilters, change: Partial<KeyFilters>): KeyFilters {
  const next = { ...current, ...change };
  const onlyPage = Object.keys(change).every((name) => name === 'page');
  if (!onlyPage) next.page = change.page ?? 1;
  return next;
}

/** The query of GET /keys/api/keys (contract §7.2): defaults are left out. */
/** The query of GET /keys/api/keys, as the server's OpenAPI document types it (query values are strings). */
export interface KeyListQuery {
  page: string;
  limit: string;
  sort: SortField;
  order: SortOrder;
  type?: Exclude<KeyType, 'all'>;
  status?: Exclude<KeyStatusFilter, ''>;
  premium?: Exclude<TriState, ''>;
  bound?: Exclude<TriState, ''>;
  expired?: Exclude<TriState, ''>;
  search?: string;
}

export function keyFiltersToQuery(filters: KeyFilters): KeyListQuery {
  const query: KeyListQuery = { page: String(filters.page), limit: String(filters.limit), sort: filters.sort, order: filters.order };
  if (filters.type !== 'all') query.type = filters.type;
  if (filters.status) query.status = filters.status;
  if (filters.premium) query.premium = filters.premium;
  if (filters.bound) query.bound = filters.bound;
  if (filters.expired) query.expired = filters.expired;
  if (filters.search.trim()) query.search = filters.search.trim();
  return query;
}

/** Export takes the same filters, without paging or sorting (the route refuses both). */
export function keyFiltersToExportQuery(
  filters: KeyFilters,
  format: 'csv' | 'json',
): Omit<KeyListQuery, 'page' | 'limit' | 'sort' | 'order'> & { format: 'csv' | 'json' } {
  const { page: _page, limit: _limit, sort: _sort, order: _order, ...rest } = keyFiltersToQuery(filters);
  return { ...rest, format };
}

/** How many filters differ from "everything" (shown on the filter button). */
export function activeFilterCount(filters: KeyFilters): number {
  return (['type', 'status', 'premium', 'bound', 'expired'] as const).filter((name) => filters[name] !== DEFAULT_FILTERS[name]).length;
}
