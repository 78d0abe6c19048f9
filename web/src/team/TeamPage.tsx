import { useState, type FormEvent } from 'react';
import { Button, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, unwrap } from '../api/client';
import { CopyAction } from '../components/CopyAction';
import { notifyError, notifySuccess } from '../components/notify';
import { Section } from '../components/Section';
import { PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { Members } from './Members';
import { DEFAULT_QUOTA, describeQuota, inviteQuota, QuotaFields, type QuotaText } from './QuotaFields';
import { ROLE_MEANS, ROLE_NAMES, type Role } from './roles';

// Contract §21, §25: the owner's Team page. Invite with a role (and a quota and key policy for a reseller), copy the
// link; the open invites with role and quota; the members (Members.tsx).

const ROLES = (Object.keys(ROLE_NAMES) as Role[]).map((value) => ({ value, label: ROLE_NAMES[value] }));

function InviteForm({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>('support');
  const [quota, setQuota] = useState<QuotaText>(DEFAULT_QUOTA);
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/services/{id}/invites', {
          params: { path: { id: serviceId } },
          body: { role, ...(role === 'reseller' ? { quota: inviteQuota(quota) } : {}) },
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
          {/* What the role does under the select, where a phone has room for it (an option's text is cut at 375 px). */}
          <NativeSelect
            label="Role"
            description={`${ROLE_NAMES[role]}: ${ROLE_MEANS[role]}`}
            data={ROLES}
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as Role)}
          />
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
          <Paper key={invite.code} withBorder p="xs" aria-label={`Invite for a ${invite.role}`}>
            <Group justify="space-between" gap="xs" wrap="wrap">
              <Stack gap={0}>
                <Text size="sm" fw={500}>
                  {ROLE_NAMES[invite.role as Role] ?? invite.role}
                </Text>
                {invite.quota && <Text size="sm">{describeQuota(invite.quota)}</Text>}
                <Text size="xs" c="dimmed">
                  Works once, until {new Date(invite.expiresAt).toLocaleString()}
                </Text>
              </Stack>
              <Group gap="xs">
                <CopyAction value={invite.url} label="Copy link" copiedMessage="Invite link copied" size="xs" variant="subtle" />
                <Button size="xs" variant="subtle" color="red" onClick={() => withdraw.mutate(invite.code)}>
                  Withdraw
                </Button>
              </Group>
            </Group>
          </Paper>
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
