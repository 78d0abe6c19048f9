import { useState } from 'react';
import { Button, Group, Menu, Pagination, Stack, Text } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { useServiceAccess } from '../services/access';
import { BulkBar, BulkDialogs, type Pending } from './BulkBar';
import { DaysDialog } from './DaysDialog';
import { downloadExport } from './exportKeys';
import { activeFilterCount, keyFiltersToQuery } from './filters';
import { GenerateDialog } from './GenerateDialog';
import { ImportDialog } from './ImportDialog';
import { KeyDrawer } from './KeyDrawer';
import { KeyFiltersBar, useKeyFilters } from './KeyFiltersBar';
import { KeysTable } from './KeysTable';
import { NO_KEYS_LEFT, useResellerPolicy } from './resellerPolicy';
import type { KeyRecord } from './records';

/** The Keys section of a service: list, filters, generate, import, export, compensate and the actions. */
export default function KeysPage() {
  const serviceId = useServiceId();
  // Contract §21: only what the role allows is shown; a reseller sees its quota beside "Generate keys".
  const access = useServiceAccess(serviceId);
  const policy = useResellerPolicy(serviceId, access.role === 'reseller');
  const [filters, setFilters] = useKeyFilters();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [generating, setGenerating] = useState(false);
  // ?import=1 (the API access page's "Switching from Luarmor" link) opens the import at once.
  const [importing, setImporting] = useState(() => new URLSearchParams(window.location.search).get('import') === '1');
  const [compensating, setCompensating] = useState(false);
  const [pending, setPending] = useState<Pending>(null);
  const [detail, setDetail] = useState<KeyRecord | null>(null);
  const [exporting, setExporting] = useState(false);
  const queryClient = useQueryClient();

  const list = useQuery({
    queryKey: ['keys', serviceId, keyFiltersToQuery(filters)],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/keys/api/keys', { headers: serviceHeaders(serviceId), params: { query: keyFiltersToQuery(filters) } })),
    placeholderData: keepPreviousData,
  });
  const compensate = useMutation({
    mutationFn: async (days: number) =>
      unwrap(await api.POST('/api/v1/keys/api/compensate', { headers: serviceHeaders(serviceId), body: { days } })),
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      notifySuccess(`Compensated ${r.activeKeysUpdated} active and ${r.generatedKeysUpdated} generated keys`);
      setCompensating(false);
    },
    onError: notifyError,
  });

  const items = list.data?.items ?? [];
  const pageKeys = items.map((k) => k.key);
  const allSelected = pageKeys.length > 0 && pageKeys.every((k) => selected.has(k));
  const toggle = (key: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const toggleAll = () => setSelected(allSelected ? new Set() : new Set(pageKeys));
  const selection = [...selected];

  const runExport = async (format: 'csv' | 'json') => {
    setExporting(true);
    try {
      await downloadExport(serviceId, filters, format);
    } catch (error) {
      notifyError(error);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <PageHeader title="Keys">
        {policy && (
          <Text size="sm" c={policy.keysLeft === 0 ? undefined : 'dimmed'} aria-label="Keys left">
            {policy.keysLeft === 0 ? NO_KEYS_LEFT : `${policy.keysLeft.toLocaleString()} key${policy.keysLeft === 1 ? '' : 's'} left`}
          </Text>
        )}
        {/* A reseller's Generate waits for its quota (the dialog offers only what it allows) and is off at 0 left. */}
        {access.can('keys.generate') && (
          <Button onClick={() => setGenerating(true)} disabled={access.role === 'reseller' && (!policy || policy.keysLeft === 0)}>
            Generate keys
          </Button>
        )}
        {access.can('keys.manage') && (
          <>
            <Menu position="bottom-end">
              <Menu.Target>
                <Button variant="default" loading={exporting}>
                  Export
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={() => void runExport('csv')}>CSV</Menu.Item>
                <Menu.Item onClick={() => void runExport('json')}>JSON</Menu.Item>
              </Menu.Dropdown>
            </Menu>
            <Button variant="default" onClick={() => setImporting(true)}>
              Import
            </Button>
            <Button variant="default" onClick={() => setCompensating(true)}>
              Compensate
            </Button>
          </>
        )}
      </PageHeader>

      <Stack gap="sm">
        <KeyFiltersBar filters={filters} setFilters={setFilters} />

        {/* Bulk actions are keys.manage in §17's table (contract §23): support and resellers act on one key at a time. */}
        {access.can('keys.manage') && (
          <BulkBar
            selection={selection}
            setPending={setPending}
            onClear={() => setSelected(new Set())}
            manage={access.can('keys.manage')}
          />
        )}

        {list.isPending ? (
          <Loading label="Loading keys" />
        ) : list.isError ? (
          <ErrorState error={list.error} retry={() => void list.refetch()} />
        ) : items.length === 0 ? (
          <Empty title={filters.search || activeFilterCount(filters) ? 'No key matches' : 'No keys yet'}>
            {filters.search || activeFilterCount(filters)
              ? 'Change the search or the filters.'
              : access.can('keys.manage')
                ? 'Generate keys or import them from a file.'
                : access.can('keys.generate')
                  ? 'Generate keys to sell; they show here.'
                  : 'Keys the owner makes show here.'}
          </Empty>
        ) : (
          <KeysTable
            items={items}
            selected={selected}
            toggle={toggle}
            toggleAll={toggleAll}
            setPending={setPending}
            openDetail={setDetail}
            can={access.can}
          />
        )}

        {list.data && list.data.total > 0 && (
          <Group justify="space-between" wrap="wrap">
            <Text size="sm" c="dimmed">
              {list.data.total.toLocaleString()} key{list.data.total === 1 ? '' : 's'}
            </Text>
            <Pagination
              total={list.data.totalPages}
              value={filters.page}
              onChange={(page) => setFilters({ page })}
              size="sm"
              aria-label="Pages"
            />
          </Group>
        )}
      </Stack>

      {generating && <GenerateDialog opened onClose={() => setGenerating(false)} serviceId={serviceId} policy={policy} />}
      <ImportDialog opened={importing} onClose={() => setImporting(false)} serviceId={serviceId} />
      <DaysDialog
        opened={compensating}
        title="Compensate every key"
        max={365}
        submitLabel="Compensate"
        onSubmit={(d) => compensate.mutate(d)}
        onClose={() => setCompensating(false)}
        busy={compensate.isPending}
      >
        <Text size="sm">Adds the days to every key of this service that expires (lifetime keys are left alone) — for downtime.</Text>
      </DaysDialog>
      <BulkDialogs serviceId={serviceId} pending={pending} setPending={setPending} onDone={() => setSelected(new Set())} />
      <KeyDrawer record={detail} onClose={() => setDetail(null)} serviceId={serviceId} />
    </>
  );
}
