import { useState } from 'react';
import { Badge, Button, Checkbox, Group, Pagination, Paper, ScrollArea, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import type { ApiData } from '../api/types';

type KeylessEntry = ApiData<'/api/v1/keys/api/keyless'>;

const PATH = '/api/v1/keys/api/keyless' as const;

/** The keyless list (contract §15: GET /keys/api/keyless/list, paged, searched on the HWID) and the add form. */
export default function KeylessPage() {
  const serviceId = useServiceId();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [hwid, setHwid] = useState('');
  const [isPremium, setPremium] = useState(false);
  const [expiresAt, setExpiresAt] = useState('');
  const [deleting, setDeleting] = useState<KeylessEntry | null>(null);
  const query = { page: String(page), limit: '20', ...(search.trim() ? { search: search.trim() } : {}) };
  const list = useQuery({
    queryKey: ['keyless', serviceId, query],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/keyless/list', { headers: serviceHeaders(serviceId), params: { query } })),
    placeholderData: keepPreviousData,
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['keyless', serviceId] });
  const add = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST(PATH, {
          headers: serviceHeaders(serviceId),
          body: { hwid: hwid.trim(), isPremium, ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}) },
        }),
      ),
    onSuccess: (entry) => {
      notifySuccess(`HWID ${entry.hwid} may now run without a key`);
      refresh();
      setHwid('');
      setExpiresAt('');
    },
  });
  const remove = useMutation({
    mutationFn: async (entry: KeylessEntry) =>
      unwrap(await api.DELETE(PATH, { headers: serviceHeaders(serviceId), params: { query: { hwid: entry.hwid } } })),
    onSuccess: () => {
      notifySuccess('Keyless entry removed');
      refresh();
      setDeleting(null);
    },
    onError: notifyError,
  });
  return (
    <>
      <PageHeader title="Keyless" />
      <Stack>
        <Paper withBorder p="md" component="section" aria-label="Find a keyless HWID">
          <Title order={3} size="h4" mb="sm">
            Keyless HWIDs
          </Title>
          <TextInput
            type="search"
            aria-label="Search HWIDs"
            placeholder="Search part of an HWID"
            value={search}
            onChange={(e) => {
              setSearch(e.currentTarget.value);
              setPage(1);
            }}
            maw={360}
            mb="sm"
          />
          {list.isPending ? (
            <Loading label="Loading keyless HWIDs" />
          ) : list.isError ? (
            <ErrorState error={list.error} retry={() => void list.refetch()} />
          ) : list.data.items.length === 0 ? (
            <Empty title={search ? 'No HWID matches' : 'No keyless HWIDs yet'}>
              {search ? 'Change the search.' : 'Add an HWID below: it will run your scripts without a key.'}
            </Empty>
          ) : (
            <ScrollArea type="auto">
              <Table striped aria-label="Keyless HWIDs" fz="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>HWID</Table.Th>
                    <Table.Th>Until</Table.Th>
                    <Table.Th>Added</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.data.items.map((entry) => (
                    <Table.Tr key={entry.hwid}>
                      <Table.Td ff="monospace">
                        {entry.hwid}
                        {entry.isPremium && (
                          <Badge ml="xs" size="sm" variant="outline" tt="none">
                            Premium
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>{new Date(entry.expiresAt).toLocaleString()}</Table.Td>
                      <Table.Td>{new Date(entry.createdAt).toLocaleDateString()}</Table.Td>
                      <Table.Td>
                        <Button size="compact-xs" color="red" variant="subtle" onClick={() => setDeleting(entry)}>
                          Delete
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          )}
          {list.data && list.data.totalPages > 1 && (
            <Group justify="space-between" mt="sm">
              <Text size="sm" c="dimmed">
                {list.data.total} HWIDs
              </Text>
              <Pagination total={list.data.totalPages} value={page} onChange={setPage} size="sm" />
            </Group>
          )}
        </Paper>
        <Paper withBorder p="md" component="section" aria-label="Add a keyless HWID">
          <Title order={3} size="h4" mb="sm">
            Add an HWID
          </Title>
          <Text size="sm" c="dimmed" mb="xs">
            A listed HWID passes validation without a key (default: one year).
          </Text>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              add.mutate();
            }}
          >
            <Stack>
              <TextInput label="HWID to add" value={hwid} onChange={(e) => setHwid(e.currentTarget.value)} required />
              <TextInput
                label="Expires at"
                description="Empty: one year from now"
                type="datetime-local"
                value={expiresAt}
                onChange={(e) => setExpiresAt(e.currentTarget.value)}
              />
              <Checkbox label="Premium" checked={isPremium} onChange={(e) => setPremium(e.currentTarget.checked)} />
              {add.error && (
                <Text c="red" size="sm" role="alert">
                  {messageOf(add.error)}
                </Text>
              )}
              <Button type="submit" w="fit-content" loading={add.isPending}>
                Add
              </Button>
            </Stack>
          </form>
        </Paper>
      </Stack>
      <ConfirmDialog
        opened={deleting !== null}
        title="Remove keyless HWID"
        onClose={() => setDeleting(null)}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        {deleting ? `HWID ${deleting.hwid} will need a key again.` : ''}
      </ConfirmDialog>
    </>
  );
}
