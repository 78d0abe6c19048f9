import { useState } from 'react';
import { Group, NativeSelect, Pagination, ScrollArea, Stack, Table, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { Empty, ErrorState, Loading } from '../components/states';
import { dayBound } from '../lib/dayBound';
import { useSession } from '../auth/session';
import { describeActor, describeAudit } from './describe';
import { AUDIT_ACTION_OPTIONS, LABELS, type AuditAction } from './actions';
import type { ApiData, ItemOf } from '../api/types';

export type AuditEntry = ItemOf<ApiData<'/api/v1/keys/api/audit'>['items']>;

/** The audit log of §7.6 (a service's or the account's): newest first, action and date filters. */
/** The service's log when `serviceId` is given, else the signed-in account's. */
export function AuditTable({ serviceId, label }: { serviceId?: string; label: string }) {
  const [page, setPage] = useState(1);
  const [action, setAction] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const query = {
    page: String(page),
    limit: '50',
    ...(action ? { action: action as AuditAction } : {}),
    ...(from && dayBound(from, false) ? { from: dayBound(from, false) } : {}),
    ...(to && dayBound(to, true) ? { to: dayBound(to, true) } : {}),
  };
  const list = useQuery({
    queryKey: ['audit', serviceId, query],
    queryFn: async () =>
      serviceId
        ? unwrap(await api.GET('/api/v1/keys/api/audit', { headers: serviceHeaders(serviceId), params: { query } }))
        : unwrap(await api.GET('/api/v1/account/audit', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const me = useSession().data?.account.id ?? null;
  const change = (apply: () => void) => {
    apply();
    setPage(1);
  };
  return (
    <Stack>
      <Group gap="xs" wrap="wrap" align="flex-end">
        <NativeSelect
          label="Action"
          data={AUDIT_ACTION_OPTIONS}
          value={action}
          onChange={(e) => change(() => setAction(e.currentTarget.value))}
        />
        <TextInput label="From" type="date" value={from} onChange={(e) => change(() => setFrom(e.currentTarget.value))} />
        <TextInput label="To" type="date" value={to} onChange={(e) => change(() => setTo(e.currentTarget.value))} />
      </Group>
      {list.isPending ? (
        <Loading label="Loading the audit log" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty title="No entries">Nothing was changed in this range{action ? ' with that action' : ''}.</Empty>
      ) : (
        <ScrollArea type="auto">
          {/* At phone width the By and Address columns fold under the sentence (contract §27: nothing off-screen). */}
          <Table striped aria-label={label} fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>What happened</Table.Th>
                <Table.Th visibleFrom="sm">By</Table.Th>
                <Table.Th visibleFrom="sm">Address</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.items.map((entry) => (
                <Table.Tr key={String(entry.id)}>
                  <Table.Td>{new Date(entry.at).toLocaleString()}</Table.Td>
                  {/* An HWID or a key is one long word: it wraps anywhere rather than widen the phone's table. */}
                  <Table.Td title={entry.target ?? undefined} style={{ overflowWrap: 'anywhere' }}>
                    {describeAudit(entry, LABELS)}
                    <Text hiddenFrom="sm" size="xs" c="dimmed">
                      {describeActor(entry.actor, me, entry.details)}
                      {entry.ip ? ` · ${entry.ip}` : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td visibleFrom="sm">{describeActor(entry.actor, me, entry.details)}</Table.Td>
                  <Table.Td visibleFrom="sm">{entry.ip ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
      {list.data && list.data.totalPages > 1 && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {list.data.total} entries
          </Text>
          <Pagination total={list.data.totalPages} value={page} onChange={setPage} size="sm" />
        </Group>
      )}
    </Stack>
  );
}
