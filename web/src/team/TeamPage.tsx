import { useState, type FormEvent } from 'react';
import { Button, Group, NativeSelect, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, unwrap } from '../api/client';
import type { ApiData, ItemOf } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyAction } from '../components/CopyAction';
import { notifyError, notifySuccess } from '../components/notify';
import { Section } from '../components/Section';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';

// Contract §21: the owner's Team page. Invite with a role (and a quota for a reseller), copy the link; the members
// with role, quota left, keys created and redeemed; change or remove them.

type Member = ItemOf<ApiData<'/api/v1/services/{id}/members'>['items']>;
type Role = 'manager' | 'support' | 'reseller';
const ROLES: { value: Role; label: string }[] = [
  { value: 'support', label: 'Support (answers buyers: reset, ban, notes)' },
  { value: 'manager', label: 'Manager (everything but the service key and the team)' },
  { value: 'reseller', label: 'Reseller (generates keys within a quota)' },
];

/** The quota fields as typed; empty max days means any length. */
interface QuotaText {
  keysLeft: string;
  maxDays: string;
  allowLifetime: boolean;
}
const quotaOf = (q: QuotaText) => ({
  keysLeft: Number(q.keysLeft),
  maxDays: q.maxDays.trim() === '' ? null : Number(q.maxDays),
  allowLifetime: q.allowLifetime,
});

function QuotaFields({ value, onChange }: { value: QuotaText; onChange: (q: QuotaText) => void }) {
  return (
    <Group align="end" wrap="wrap">
      <TextInput
        label="Keys it may generate"
        inputMode="numeric"
        value={value.keysLeft}
        onChange={(e) => onChange({ ...value, keysLeft: e.currentTarget.value })}
        w={180}
      />
      <TextInput
        label="Longest key, in days"
        description="Empty: any length"
        inputMode="numeric"
        value={value.maxDays}
        onChange={(e) => onChange({ ...value, maxDays: e.currentTarget.value })}
        w={180}
      />
      <Switch
        label="May make lifetime keys"
        checked={value.allowLifetime}
        onChange={(e) => onChange({ ...value, allowLifetime: e.currentTarget.checked })}
      />
    </Group>
  );
}

function InviteForm({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>('support');
  const [quota, setQuota] = useState<QuotaText>({ keysLeft: '10', maxDays: '', allowLifetime: false });
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/services/{id}/invites', {
          params: { path: { id: serviceId } },
          body: { role, ...(role === 'reseller' ? { quota: quotaOf(quota) } : {}) },
        }),
      ),
    onSuccess: (data) => {
      setLink(data.url);
      void queryClient.invalidateQueries({ queryKey: ['invites', serviceId] });
      notifySuccess('Invite created: send the link to the person you invite');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  return (
    <Section title="Invite someone">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <NativeSelect label="Role" data={ROLES} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} />
          {role === 'reseller' && <QuotaFields value={quota} onChange={setQuota} />}
          {invite.error && (
            <Text c="red" size="sm" role="alert">
              {messageOf(invite.error)}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={invite.isPending}>
              Create invite link
            </Button>
          </Group>
          {link && (
            <Group gap="xs" wrap="wrap">
              <Text ff="monospace" size="sm" aria-label="Invite link" style={{ overflowWrap: 'anywhere' }}>
                {link}
              </Text>
              <CopyAction value={link} label="Copy link" copiedMessage="Invite link copied" ariaLabel="Copy the invite link" size="xs" />
              <Text size="xs" c="dimmed">
                Works once, for 7 days.
              </Text>
            </Group>
          )}
        </Stack>
      </form>
    </Section>
  );
}

function MemberRow({ member, serviceId, onRemove }: { member: Member; serviceId: string; onRemove: (m: Member) => void }) {
  const queryClient = useQueryClient();
  const [quota, setQuota] = useState<QuotaText | null>(null);
  const change = useMutation({
    mutationFn: async (body: { role?: Role; quota?: ReturnType<typeof quotaOf> }) =>
      unwrap(
        await api.PATCH('/api/v1/services/{id}/members/{accountId}', {
          params: { path: { id: serviceId, accountId: member.accountId } },
          body,
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['members', serviceId] });
      notifySuccess(`${member.username} changed`);
      setQuota(null);
    },
    onError: notifyError,
  });
  return (
    <Table.Tr>
      <Table.Td>{member.username}</Table.Td>
      <Table.Td>
        <NativeSelect
          aria-label={`Role of ${member.username}`}
          data={ROLES.map((r) => ({ value: r.value, label: r.value[0]!.toUpperCase() + r.value.slice(1) }))}
          value={member.role}
          onChange={(e) => change.mutate({ role: e.currentTarget.value as Role })}
          size="xs"
        />
      </Table.Td>
      <Table.Td>
        {member.quota ? (
          quota ? (
            <Stack gap="xs">
              <QuotaFields value={quota} onChange={setQuota} />
              <Group gap="xs">
                <Button size="xs" onClick={() => change.mutate({ quota: quotaOf(quota) })} loading={change.isPending}>
                  Save quota
                </Button>
                <Button size="xs" variant="default" onClick={() => setQuota(null)}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          ) : (
            <Group gap="xs" wrap="nowrap">
              <Text size="sm" aria-label={`Keys left for ${member.username}`}>
                {member.quota.keysLeft.toLocaleString()} left
                {member.quota.maxDays !== null ? `, up to ${member.quota.maxDays} days` : ''}
                {member.quota.allowLifetime ? ', lifetime allowed' : ''}
              </Text>
              <Button
                size="xs"
                variant="subtle"
                aria-label={`Change the quota of ${member.username}`}
                onClick={() =>
                  setQuota({
                    keysLeft: String(member.quota!.keysLeft),
                    maxDays: member.quota!.maxDays === null ? '' : String(member.quota!.maxDays),
                    allowLifetime: member.quota!.allowLifetime,
                  })
                }
              >
                Change
              </Button>
            </Group>
          )
        ) : (
          <Text size="sm" c="dimmed">
            —
          </Text>
        )}
      </Table.Td>
      <Table.Td>{member.keysCreated.toLocaleString()}</Table.Td>
      <Table.Td>{member.keysRedeemed.toLocaleString()}</Table.Td>
      <Table.Td>
        <Button size="xs" variant="subtle" color="red" aria-label={`Remove ${member.username}`} onClick={() => onRemove(member)}>
          Remove
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}

function Members({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const [removing, setRemoving] = useState<Member | null>(null);
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
  return (
    <Section title="Members">
      {members.isPending ? (
        <Loading label="Loading members" />
      ) : members.isError ? (
        <ErrorState error={members.error} retry={() => void members.refetch()} />
      ) : members.data.items.length === 0 ? (
        <Empty title="No members yet">Invite support staff, a manager or a reseller above.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label="Members">
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
                <MemberRow key={m.accountId} member={m} serviceId={serviceId} onRemove={setRemoving} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
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

function OpenInvites({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const invites = useQuery({
    queryKey: ['invites', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/services/{id}/invites', { params: { path: { id: serviceId } } })),
  });
  const withdraw = useMutation({
    mutationFn: async (code: string) =>
      unwrap(await api.DELETE('/api/v1/services/{id}/invites/{code}', { params: { path: { id: serviceId, code } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['invites', serviceId] }),
    onError: notifyError,
  });
  if (!invites.data || invites.data.items.length === 0) return null;
  return (
    <Section title="Open invites">
      <Stack gap="xs">
        {invites.data.items.map((invite) => (
          <Group key={invite.code} gap="xs" wrap="wrap">
            <Text size="sm">{invite.role}</Text>
            <Text size="xs" c="dimmed">
              until {new Date(invite.expiresAt).toLocaleString()}
            </Text>
            <CopyAction value={invite.url} label="Copy link" copiedMessage="Invite link copied" size="xs" variant="subtle" />
            <Button size="xs" variant="subtle" color="red" onClick={() => withdraw.mutate(invite.code)}>
              Withdraw
            </Button>
          </Group>
        ))}
      </Stack>
    </Section>
  );
}

export default function TeamPage() {
  const serviceId = useServiceId();
  return (
    <>
      <PageHeader title="Team" />
      <Stack gap="md">
        <InviteForm serviceId={serviceId} />
        <OpenInvites serviceId={serviceId} />
        <Members serviceId={serviceId} />
      </Stack>
    </>
  );
}
