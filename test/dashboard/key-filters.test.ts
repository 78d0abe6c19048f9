import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FILTERS,
  activeFilterCount,
  keyFiltersToExportQuery,
  keyFiltersToParams,
  keyFiltersToQuery,
  parseKeyFilters,
  updateKeyFilters,
} from '../../web/src/keys/filters.ts';

const parse = (query: string) => parseKeyFilters(new URLSearchParams(query));

describe('keys table state in the URL', () => {
  it('reads the defaults from an empty address and writes an empty one back', () => {
    expect(parse('')).toEqual(DEFAULT_FILTERS);
    expect(keyFiltersToParams(DEFAULT_FILTERS).toString()).toBe('');
  });

  it('round-trips every filter, sort and page through the address', () => {
    const state = {
      type: 'active',
      status: 'banned',
      premium: 'true',
      bound: 'false',
      expired: 'true',
      search: 'abc 50%',
      sort: 'executions',
      order: 'asc',
      page: 3,
      limit: 50,
    } as const;
    const params = keyFiltersToParams(state);
    expect(parseKeyFilters(new URLSearchParams(params.toString()))).toEqual(state);
  });

  it('falls back to the default for unknown or malformed values instead of sending them to the API', () => {
    expect(parse('type=bogus&status=deleted&premium=yes&sort=key&order=up&page=0&limit=1000')).toEqual(DEFAULT_FILTERS);
    expect(parse('page=-2').page).toBe(1);
    expect(parse('page=1.5').page).toBe(1);
    expect(parse('page=abc').page).toBe(1);
    expect(parse('limit=37').limit).toBe(20);
  });

  it('caps an absurd page number and a huge search', () => {
    expect(parse('page=999999999').page).toBe(1_000_000);
    expect(parse(`search=${'x'.repeat(1000)}`).search).toHaveLength(256);
  });

  it('goes back to page 1 when a filter changes, but not when only the page does', () => {
    const onPage4 = { ...DEFAULT_FILTERS, page: 4 };
    expect(updateKeyFilters(onPage4, { status: 'banned' }).page).toBe(1);
    expect(updateKeyFilters(onPage4, { search: 'x' }).page).toBe(1);
    expect(updateKeyFilters(onPage4, { page: 5 }).page).toBe(5);
  });

  it('builds the API query with only the filters that are set, and a trimmed search', () => {
    expect(keyFiltersToQuery(DEFAULT_FILTERS)).toEqual({ page: '1', limit: '20', sort: 'createdAt', order: 'desc' });
    expect(keyFiltersToQuery({ ...DEFAULT_FILTERS, search: '  abc ', bound: 'true', type: 'generated' })).toEqual({
      page: '1',
      limit: '20',
      sort: 'createdAt',
      order: 'desc',
      search: 'abc',
      bound: 'true',
      type: 'generated',
    });
    expect(keyFiltersToQuery({ ...DEFAULT_FILTERS, search: '   ' })).not.toHaveProperty('search');
  });

  it('exports with the same filters, no paging and no sorting (the export route refuses them)', () => {
    expect(keyFiltersToExportQuery({ ...DEFAULT_FILTERS, status: 'paused', page: 9 }, 'json')).toEqual({
      status: 'paused',
      format: 'json',
    });
  });

  it('counts the filters that narrow the list', () => {
    expect(activeFilterCount(DEFAULT_FILTERS)).toBe(0);
    expect(activeFilterCount({ ...DEFAULT_FILTERS, premium: 'false', type: 'active', search: 'x' })).toBe(2);
  });
});
