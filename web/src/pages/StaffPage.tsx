import { useState } from 'react';
import { Badge, Button, NativeSelect, Pagination, ScrollArea, Stack, Table, Tabs, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../auth/session';
import { api, ApiError, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import type { Page } from '../api/types';
import { ROLE_OPTIONS, roleLabel } from '../lib/labels';
import { BackupSection } from './BackupSection';
import type { ApiData, ItemOf } from '../api/types';

type StaffAccount = ItemOf<ApiData<'/api/v1/admin/accounts'>['items']>;
type StaffService = ItemOf<ApiData<'/api/v1/admin/services'>['items']>;

type PageQuery = { page: string; limit: string; search?: string };

function usePaged<T>(key: string, load: (query: PageQuery) => Promise<Page<T>>) {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const query = useQuery({
    queryKey: ['admin', key, page, search],
    queryFn: () => load({ page: String(page), limit: '50', ...(search.trim() ? { search: search.trim() } : {}) }),
    placeholderData: keepPreviousData,
    retry: (count, error) => !(error instanceof ApiError && error.status === 403) && count < 2,
  });
  return { query, page, setPage, search, setSearch: (v: string) => (setSearch(v), setPage(1)) };
}

function Accounts() {
  const queryClient = useQueryClient();
  // Only admins change roles (PATCH /admin/accounts/:id answers a moderator 403): a moderator sees the role, disabled.
  const session = useSession().data;
  const isAdmin = session?.account.role === 'admin';
  const myId = session?.account.id;
  const { query, page, setPage, search, setSearch } = usePaged<StaffAccount>('accounts', async (query) =>
    unwrap(await api.GET('/api/v1/admin/accounts', { params: { query } })),
  );
  const [disabling, setDisabling] = useState<StaffAccount | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['admin', 'accounts'] });
  const setDisabled = useMutation({
    mutationFn: async ({ account, disabled }: { account: StaffAccount; disabled: boolean }) =>
      unwrap(
        await api.POST(disabled ? '/api/v1/admin/accounts/{id}/disable' : '/api/v1/admin/accounts/{id}/enable', {
          params: { path: { id: account.id } },
        }),
      ),
    onSuccess: (_d, { account, disabled }) => {
      refresh();
      setDisabling(null);
      notifySuccess(`${account.username} ${disabled ? 'disabled' : 'enabled'}`);
    },
    onError: notifyError,
  });
  const setRole = useMutation({
    mutationFn: async ({ account, role }: { account: StaffAccount; role: StaffAccount['role'] }) =>
      unwrap(await api.PATCH('/api/v1/admin/accounts/{id}', { params: { path: { id: account.id } }, body: { role } })),
    onSuccess: (_d, { account, role }) => {
      refresh();
      notifySuccess(`${account.username} is now ${roleLabel(role).toLowerCase()}`);
    },
    onError: notifyError,
  });
  return (
    <Stack>
      <TextInput
        type="search"
        aria-label="Search accounts"
        placeholder="Search by username"
        value={search}
        onChange={(e) => setSearch(e.currentTarget.value)}
        maw={320}
      />
      {query.isPending ? (
        <Loading label="Loading accounts" />
      ) : query.isError ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : query.data.items.length === 0 ? (
        <Empty title="No accounts" />
      ) : (
        <ScrollArea type="auto">
          <Table striped aria-label="Accounts" miw={640}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Username</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Two-factor</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {query.data.items.map((account) => (
                <Table.Tr key={account.id}>
                  <Table.Td>{account.username}</Table.Td>
                  <Table.Td>
                    <NativeSelect
                      size="xs"
                      aria-label={`Role of ${account.username}`}
                      value={account.role}
                      data={ROLE_OPTIONS}
                      disabled={!isAdmin || setRole.isPending || account.id === myId}
                      title={
                        !isAdmin ? 'Only an admin can change roles' : account.id === myId ? 'Nobody changes their own role' : undefined
                      }
                      onChange={(e) => setRole.mutate({ account, role: e.currentTarget.value as StaffAccount['role'] })}
                    />
                  </Table.Td>
                  <Table.Td>{account.twoFactorEnabled ? 'on' : 'off'}</Table.Td>
                  <Table.Td>{account.disabled ? <Badge color="red">disabled</Badge> : <Badge color="green">active</Badge>}</Table.Td>
                  <Table.Td>
                    {/* The server refuses to disable your own account: no button that can only fail. */}
                    {account.id === myId ? (
                      <Text size="xs" c="dimmed">
                        You
                      </Text>
                    ) : account.disabled ? (
                      <Button size="compact-xs" variant="light" onClick={() => setDisabled.mutate({ account, disabled: false })}>
                        Enable
                      </Button>
                    ) : (
                      <Button size="compact-xs" variant="light" color="red" onClick={() => setDisabling(account)}>
                        Disable
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
      {query.data && query.data.totalPages > 1 && <Pagination total={query.data.totalPages} value={page} onChange={setPage} size="sm" />}
      <ConfirmDialog
        opened={disabling !== null}
        title="Disable account"
        onClose={() => setDisabling(null)}
        busy={setDisabled.isPending}
        onConfirm={() => disabling && setDisabled.mutate({ account: disabling, disabled: true })}
      >
        {disabling ? `${disabling.username}'s sessions, account key and service keys stop working at once.` : ''}
      </ConfirmDialog>
    </Stack>
  );
}

function Services() {
  const { query, page, setPage, search, setSearch } = usePaged<StaffService>('services', async (query) =>
    unwrap(await api.GET('/api/v1/admin/services', { params: { query } })),
  );
  return (
    <Stack>
      <TextInput
        type="search"
        aria-label="Search services"
        placeholder="Search by name or identifier"
        value={search}
        onChange={(e) => setSearch(e.currentTarget.value)}
        maw={320}
      />
      {query.isPending ? (
        <Loading label="Loading services" />
      ) : query.isError ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : query.data.items.length === 0 ? (
        <Empty title="No services" />
      ) : (
        <ScrollArea type="auto">
          <Table striped aria-label="All services" miw={560}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Identifier</Table.Th>
                <Table.Th>Owner</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {query.data.items.map((s) => (
                <Table.Tr key={s.id}>
                  <Table.Td>{s.name}</Table.Td>
                  <Table.Td ff="monospace">{s.identifier}</Table.Td>
                  <Table.Td>{s.ownerUsername}</Table.Td>
                  <Table.Td>{new Date(s.createdAt).toLocaleDateString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
      {query.data && query.data.totalPages > 1 && <Pagination total={query.data.totalPages} value={page} onChange={setPage} size="sm" />}
    </Stack>
  );
}

export default function StaffPage() {
  const isAdmin = useSession().data?.account.role === 'admin';
  return (
    <>
      <PageHeader title="Staff" />
      <Text size="sm" c="dimmed" mb="sm">
        Moderators and admins only; changing roles needs an admin.
      </Text>
      {isAdmin && (
        <Stack mb="md">
          <BackupSection />
        </Stack>
      )}
      <Tabs defaultValue="accounts" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="accounts">Accounts</Tabs.Tab>
          <Tabs.Tab value="services">Services</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="accounts">
          <Accounts />
        </Tabs.Panel>
        <Tabs.Panel value="services">
          <Services />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
