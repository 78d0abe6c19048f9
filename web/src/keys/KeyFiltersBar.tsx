import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { Group, NativeSelect, TextInput } from '@mantine/core';
import { PAGE_SIZES, activeFilterCount, keyFiltersToParams, parseKeyFilters, updateKeyFilters, type KeyFilters } from './filters';

/** The list filters live in the address, so a filtered view can be bookmarked and survives a reload. */
export function useKeyFilters(): [KeyFilters, (change: Partial<KeyFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => parseKeyFilters(params), [params]);
  // From the address as it is now, not as this render saw it: two quick changes (clear the search, pick a
  // status) must not let the second undo the first while the router is still applying it.
  // (react-router hands a functional update this render's params too, so the address bar is read directly.)
  const update = (change: Partial<KeyFilters>) =>
    setParams(keyFiltersToParams(updateKeyFilters(parseKeyFilters(new URLSearchParams(window.location.search)), change)), {
      replace: true,
    });
  return [filters, update];
}

function FilterSelect({
  label,
  value,
  onChange,
  data,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  data: Array<{ value: string; label: string }>;
}) {
  return <NativeSelect size="xs" label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)} data={data} />;
}

const ANY = { value: '', label: 'Any' };
const SEARCH_DEBOUNCE_MS = 300;
const YES_NO = [ANY, { value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }];

/** The search box and the filter selects above the keys table. */
export function KeyFiltersBar({ filters, setFilters }: { filters: KeyFilters; setFilters: (change: Partial<KeyFilters>) => void }) {
  const [searchText, setSearchText] = useState(filters.search);
  // Type-ahead: the search runs once typing pauses (Enter runs it at once). Compared with the address as it
  // is now, so a pause after Enter, or after the back button changed it, does not search again.
  useEffect(() => {
    const timer = setTimeout(() => {
      if (searchText !== parseKeyFilters(new URLSearchParams(window.location.search)).search) setFilters({ search: searchText });
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // setFilters is a new function each render; the search text alone decides.
  }, [searchText]);
  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    setFilters({ search: searchText });
  };
  return (
    <>
      <form onSubmit={submitSearch} role="search">
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput
            type="search"
            aria-label="Search"
            placeholder="Search key, note, HWID or Discord user id"
            value={searchText}
            onChange={(e) => setSearchText(e.currentTarget.value)}
            style={{ flex: '1 1 220px' }}
          />
        </Group>
      </form>
      <Group gap="xs" wrap="wrap" align="flex-end" aria-label={`Filters (${activeFilterCount(filters)} set)`} role="group">
        <FilterSelect
          label="Type"
          value={filters.type}
          onChange={(v) => setFilters({ type: v as KeyFilters['type'] })}
          data={[
            { value: 'all', label: 'All keys' },
            { value: 'active', label: 'In use' },
            { value: 'generated', label: 'Not used yet' },
          ]}
        />
        <FilterSelect
          label="Status"
          value={filters.status}
          onChange={(v) => setFilters({ status: v as KeyFilters['status'] })}
          data={[ANY, { value: 'active', label: 'Active' }, { value: 'paused', label: 'Paused' }, { value: 'banned', label: 'Banned' }]}
        />
        <FilterSelect
          label="Premium"
          value={filters.premium}
          onChange={(v) => setFilters({ premium: v as KeyFilters['premium'] })}
          data={YES_NO}
        />
        <FilterSelect label="Bound" value={filters.bound} onChange={(v) => setFilters({ bound: v as KeyFilters['bound'] })} data={YES_NO} />
        <FilterSelect
          label="Expired"
          value={filters.expired}
          onChange={(v) => setFilters({ expired: v as KeyFilters['expired'] })}
          data={YES_NO}
        />
        <FilterSelect
          label="Sort by"
          value={filters.sort}
          onChange={(v) => setFilters({ sort: v as KeyFilters['sort'] })}
          data={[
            { value: 'createdAt', label: 'Created' },
            { value: 'expiresAt', label: 'Expiry' },
            { value: 'lastUsedAt', label: 'Last used' },
            { value: 'executions', label: 'Executions' },
          ]}
        />
        <FilterSelect
          label="Order"
          value={filters.order}
          onChange={(v) => setFilters({ order: v as KeyFilters['order'] })}
          data={[
            { value: 'desc', label: 'Newest / highest first' },
            { value: 'asc', label: 'Oldest / lowest first' },
          ]}
        />
        <FilterSelect
          label="Per page"
          value={String(filters.limit)}
          onChange={(v) => setFilters({ limit: Number(v) })}
          data={PAGE_SIZES.map((n) => ({ value: String(n), label: String(n) }))}
        />
      </Group>
    </>
  );
}
