import { useState } from 'react';
import { Button, Group, Modal, NativeSelect, Paper, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, unwrap } from '../api/client';
import type { ApiData, ItemOf } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { Section } from '../components/Section';
import { Empty, ErrorState, Loading } from '../components/states';
import { changedQuota, describeQuota, QuotaFields, quotaText, type QuotaBody, type QuotaText } from './QuotaFields';
import { ROLE_NAMES, type Role } from './roles';

// Contract §21, §25: the members with role, quota left, keys created and redeemed; change or remove them. A table on
// a wide screen; on a phone one card per member, so every column is there without sideways scrolling.

type Member = ItemOf<ApiData<'/api/v1/services/{id}/members'>['items']>;

function useChangeMember(serviceId: string, member: Member, done?: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { role?: Role; quota?: QuotaBody }) =>
      unwrap(
        await api.PATCH('/api/v1/services/{id}/members/{accountId}', {
          params: { path: { id: serviceId, accountId: member.accountId } },
          body,
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['members', serviceId] });
      notifySuccess(`${member.username} changed`);
      done?.();
    },
    onError: notifyError,
  });
}

function RoleSelect({ member, serviceId }: { member: Member; serviceId: string }) {
  const change = useChangeMember(serviceId, member);
  return (
    <NativeSelect
      aria-label={`Role of ${member.username}`}
      data={Object.entries(ROLE_NAMES).map(([value, label]) => ({ value, label }))}
      value={member.role}
      disabled={change.isPending}
      onChange={(e) => change.mutate({ role: e.currentTarget.value as Role })}
      size="xs"
      w={120}
    />
  );
}

/** The quota in words, with Change opening the quota's form in a dialog (it has seven fields: no table cell fits them). */
function QuotaCell({ member, onChange }: { member: Member; onChange: (m: Member) => void }) {
  if (!member.quota) {
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  }
  return (
    <Stack gap={2} align="flex-start">
      <Text size="sm" aria-label={`Keys left for ${member.username}`}>
        {describeQuota(member.quota)}
      </Text>
      <Button size="compact-xs" variant="subtle" aria-label={`Change the quota of ${member.username}`} onClick={() => onChange(member)}>
        Change quota
      </Button>
    </Stack>
  );
}

function QuotaDialog({ member, serviceId, onClose }: { member: Member; serviceId: string; onClose: () => void }) {
  const from = quotaText(member.quota!);
  const [typed, setTyped] = useState<QuotaText>(from);
  const change = useChangeMember(serviceId, member, onClose);
  const body = changedQuota(typed, from);
  return (
    <Modal opened onClose={onClose} title={`Quota of ${member.username}`} centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (Object.keys(body).length === 0) return onClose();
          change.mutate({ quota: body });
        }}
      >
        <Stack gap="sm">
          <QuotaFields value={typed} onChange={setTyped} />
          {change.error ? (
            <Text c="red" size="sm" role="alert">
              {messageOf(change.error)}
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={change.isPending}>
              Save quota
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

interface RowProps {
  member: Member;
  serviceId: string;
  onQuota: (m: Member) => void;
  onRemove: (m: Member) => void;
}

const RemoveButton = ({ member, onRemove }: Pick<RowProps, 'member' | 'onRemove'>) => (
  <Button size="xs" variant="subtle" color="red" aria-label={`Remove ${member.username}`} onClick={() => onRemove(member)}>
    Remove
  </Button>
);

function MemberRow({ member, serviceId, onQuota, onRemove }: RowProps) {
  return (
    <Table.Tr>
      <Table.Td>{member.username}</Table.Td>
      <Table.Td>
        <RoleSelect member={member} serviceId={serviceId} />
      </Table.Td>
      <Table.Td>
        <QuotaCell member={member} onChange={onQuota} />
      </Table.Td>
      <Table.Td>{member.keysCreated.toLocaleString()}</Table.Td>
      <Table.Td>{member.keysRedeemed.toLocaleString()}</Table.Td>
      <Table.Td>
        <RemoveButton member={member} onRemove={onRemove} />
      </Table.Td>
    </Table.Tr>
  );
}

/** A phone's member: every column of the table, each under its name. */
function MemberCard({ member, serviceId, onQuota, onRemove }: RowProps) {
  const field = (name: string, value: React.ReactNode) => (
    <div>
      <Text size="xs" c="dimmed">
        {name}
      </Text>
      {typeof value === 'string' ? <Text size="sm">{value}</Text> : value}
    </div>
  );
  return (
    <Paper withBorder p="sm" component="li" aria-label={member.username} style={{ listStyle: 'none' }}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {member.username}
          </Text>
          <RemoveButton member={member} onRemove={onRemove} />
        </Group>
        {field('Role', <RoleSelect member={member} serviceId={serviceId} />)}
        {field('Quota left', <QuotaCell member={member} onChange={onQuota} />)}
        <SimpleGrid cols={2} spacing="xs">
          {field('Keys created', member.keysCreated.toLocaleString())}
          {field('Keys redeemed', member.keysRedeemed.toLocaleString())}
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}

export function Members({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const phone = useMediaQuery('(max-width: 48em)') ?? false;
  const [removing, setRemoving] = useState<Member | null>(null);
  const [quotaOf, setQuotaOf] = useState<Member | null>(null);
  const members = useQuery({
    queryKey: ['members', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/services/{id}/members', { params: { path: { id: serviceId } } })),
  });
  const remove = useMutation({
    mutationFn: async (m: Member) =>
      unwrap(
        await api.DELETE('/api/v1/services/{id}/members/{accountId}', { params: { path: { id: serviceId, accountId: m.accountId } } }),
      ),
    onSuccess: (_data, m) => {
      void queryClient.invalidateQueries({ queryKey: ['members', serviceId] });
      notifySuccess(`${m.username} removed`);
      setRemoving(null);
    },
    onError: notifyError,
  });
  const rowProps = { serviceId, onQuota: setQuotaOf, onRemove: setRemoving };
  return (
    <Section title="Members">
      {members.isPending ? (
        <Loading label="Loading members" />
      ) : members.isError ? (
        <ErrorState error={members.error} retry={() => void members.refetch()} />
      ) : members.data.items.length === 0 ? (
        <Empty title="No members yet">Invite support staff, a manager or a reseller above.</Empty>
      ) : phone ? (
        <Stack component="ul" aria-label="Members" gap="sm" p={0} m={0}>
          {members.data.items.map((m) => (
            <MemberCard key={m.accountId} member={m} {...rowProps} />
          ))}
        </Stack>
      ) : (
        <Table striped aria-label="Members" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Member</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Quota left</Table.Th>
              <Table.Th>Keys created</Table.Th>
              <Table.Th>Keys redeemed</Table.Th>
              <Table.Th>
                <span className="visually-hidden">Actions</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.data.items.map((m) => (
              <MemberRow key={m.accountId} member={m} {...rowProps} />
            ))}
          </Table.Tbody>
        </Table>
      )}
      {quotaOf && <QuotaDialog member={quotaOf} serviceId={serviceId} onClose={() => setQuotaOf(null)} />}
      <ConfirmDialog
        opened={removing !== null}
        title={`Remove ${removing?.username ?? ''}?`}
        onClose={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing)}
        busy={remove.isPending}
      >
        They lose access to this service from their next request. Keys they made stay.
      </ConfirmDialog>
    </Section>
  );
}
