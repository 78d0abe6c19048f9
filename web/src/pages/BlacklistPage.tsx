import { useState } from 'react';
import { Alert, Button, Group, Modal, Pagination, ScrollArea, Stack, Table, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { Section } from '../components/Section';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import type { ApiData, ItemOf } from '../api/types';

type Entry = ItemOf<ApiData<'/api/v1/keys/api/blacklist'>['items']>;

const PATH = '/api/v1/keys/api/blacklist' as const;

function AddDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [hwid, setHwid] = useState('');
  const [reason, setReason] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const add = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST(PATH, {
          headers: serviceHeaders(serviceId),
          body: {
            hwid: hwid.trim(),
            ...(reason.trim() ? { reason: reason.trim() } : {}),
            ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
          },
        }),
      ),
    onSuccess: (entry) => {
      void queryClient.invalidateQueries({ queryKey: ['blacklist', serviceId] });
      notifySuccess(`HWID ${entry.hwid} blacklisted`);
      setHwid('');
      setReason('');
      setExpiresAt('');
      onClose();
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="Blacklist an HWID" centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <Stack>
          <TextInput label="HWID" value={hwid} onChange={(e) => setHwid(e.currentTarget.value)} required data-autofocus />
          <TextInput label="Reason" maxLength={512} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          <TextInput
            label="Expires at"
            description="Empty: permanent"
            type="datetime-local"
            value={expiresAt}
            onChange={(e) => setExpiresAt(e.currentTarget.value)}
          />
          {add.error && (
            <Text c="red" size="sm" role="alert">
              {messageOf(add.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={add.isPending}>
              Blacklist
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** "Is this HWID blacklisted?": the check route answers for an entry in force (an expired one no longer counts). */
function CheckHwid({ serviceId }: { serviceId: string }) {
  const [hwid, setHwid] = useState('');
  const check = useMutation({
    mutationFn: async (value: string) =>
      unwrap(await api.GET('/api/v1/keys/api/blacklist/check', { headers: serviceHeaders(serviceId), params: { query: { hwid: value } } })),
  });
  return (
    <Section title="Check an HWID">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (hwid.trim()) check.mutate(hwid.trim());
        }}
      >
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput
            label="HWID to check"
            value={hwid}
            onChange={(e) => {
              setHwid(e.currentTarget.value);
              check.reset();
            }}
            required
            miw={240}
          />
          <Button type="submit" variant="light" loading={check.isPending}>
            Check
          </Button>
        </Group>
      </form>
      {check.isError && (
        <Text c="red" size="sm" role="alert" mt="xs">
          {messageOf(check.error)}
        </Text>
      )}
      {check.data && (
        <div role="status" aria-label="Check result">
          <Alert
            mt="sm"
            color={check.data.blacklisted ? 'red' : 'green'}
            title={check.data.blacklisted ? `${check.data.hwid} is blacklisted` : `${check.data.hwid} is not blacklisted`}
          >
            {check.data.blacklisted
              ? `${check.data.reason ? `Reason: ${check.data.reason}. ` : 'No reason given. '}${
                  check.data.expiresAt ? `In force until ${new Date(check.data.expiresAt).toLocaleString()}.` : 'Permanent.'
                }`
              : 'It validates normally (an expired entry no longer counts).'}
          </Alert>
        </div>
      )}
    </Section>
  );
}

export default function BlacklistPage() {
  const serviceId = useServiceId();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Entry | null>(null);
  const list = useQuery({
    queryKey: ['blacklist', serviceId, page, search],
    queryFn: async () =>
      unwrap(
        await api.GET(PATH, {
          headers: serviceHeaders(serviceId),
          params: { query: { page: String(page), limit: '20', ...(search.trim() ? { search: search.trim() } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const remove = useMutation({
    mutationFn: async (entry: Entry) =>
      unwrap(await api.DELETE(PATH, { headers: serviceHeaders(serviceId), params: { query: { hwid: entry.hwid } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['blacklist', serviceId] });
      notifySuccess('Removed from the blacklist');
      setDeleting(null);
    },
    onError: notifyError,
  });
  const now = Date.now();
  return (
    <>
      <PageHeader title="Blacklist">
        <Button onClick={() => setAdding(true)}>Blacklist HWID</Button>
      </PageHeader>
      <Stack>
        <CheckHwid serviceId={serviceId} />
        <TextInput
          type="search"
          aria-label="Search"
          placeholder="Search HWID or reason"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          maw={360}
        />
        {list.isPending ? (
          <Loading label="Loading the blacklist" />
        ) : list.isError ? (
          <ErrorState error={list.error} retry={() => void list.refetch()} />
        ) : list.data.items.length === 0 ? (
          <Empty title={search ? 'No entry matches' : 'The blacklist is empty'}>
            {search ? 'Change the search.' : 'A blacklisted HWID fails validation with every key.'}
          </Empty>
        ) : (
          <ScrollArea type="auto">
            <Table striped aria-label="Blacklist" miw={600}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>HWID</Table.Th>
                  <Table.Th>Reason</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Added</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.items.map((entry) => (
                  <Table.Tr key={entry.hwid}>
                    <Table.Td ff="monospace">{entry.hwid}</Table.Td>
                    <Table.Td>{entry.reason}</Table.Td>
                    <Table.Td>
                      {entry.expiresAt
                        ? `${new Date(entry.expiresAt).toLocaleString()}${Date.parse(entry.expiresAt) <= now ? ' (no longer in force)' : ''}`
                        : 'Permanent'}
                    </Table.Td>
                    <Table.Td>{new Date(entry.createdAt).toLocaleDateString()}</Table.Td>
                    <Table.Td>
                      <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(entry)}>
                        Delete
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        )}
        {list.data && list.data.totalPages > 1 && <Pagination total={list.data.totalPages} value={page} onChange={setPage} size="sm" />}
      </Stack>
      <AddDialog opened={adding} onClose={() => setAdding(false)} serviceId={serviceId} />
      <ConfirmDialog
        opened={deleting !== null}
        title="Remove from the blacklist"
        onClose={() => setDeleting(null)}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        {deleting ? `HWID ${deleting.hwid} may validate again.` : ''}
      </ConfirmDialog>
    </>
  );
}
