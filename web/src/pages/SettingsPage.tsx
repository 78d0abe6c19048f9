import { useState } from 'react';
import { Anchor, Button, Divider, Group, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { sectionPath } from '../layout/sections';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { SigningSection } from './SigningSection';
import { RangeInput } from '../components/RangeInput';
import { rangeProblem } from '../lib/numbers';
import { describeTestOutcome } from '../lib/outcomes';
import { outboxStatusLabel } from '../lib/labels';

const HEARTBEAT = {
  label: 'Heartbeat every (seconds)',
  subject: 'How often a running script checks in',
  min: 10,
  max: 300,
  unit: 'seconds',
};
const COOLDOWN = {
  free: { label: 'Free keys (hours)', subject: 'The cooldown of free keys', min: 0, max: 720, unit: 'hours' },
  premium: { label: 'Premium keys (hours)', subject: 'The cooldown of premium keys', min: 0, max: 720, unit: 'hours' },
};
import type { ApiData, ItemOf } from '../api/types';

type Settings = ApiData<'/api/v1/keys/api/service/info'>['settings'];
type ServiceInfo = ApiData<'/api/v1/keys/api/service/info'>;
type OutboxRow = ItemOf<ApiData<'/api/v1/keys/api/webhook/outbox'>['items']>;

function SettingsForm({ info, serviceId }: { info: ServiceInfo; serviceId: string }) {
  const queryClient = useQueryClient();
  const s = info.settings;
  const [webhookUrl, setWebhookUrl] = useState('');
  const [free, setFree] = useState<number | string>(s.hwidResetCooldownFreeHours);
  const [premium, setPremium] = useState<number | string>(s.hwidResetCooldownPremiumHours);
  const [testMessage, setTestMessage] = useState('Test message from Keyward');
  const [revealed, setRevealed] = useState<string | null>(null);
  const [confirmRemoveWebhook, setConfirmRemoveWebhook] = useState(false);
  const [triedCooldowns, setTriedCooldowns] = useState(false);
  const [heartbeatSeconds, setHeartbeatSeconds] = useState<number | string>(s.sessionHeartbeatSeconds);
  const [triedHeartbeat, setTriedHeartbeat] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['service-info', serviceId] });

  const update = useMutation({
    mutationFn: async (body: Partial<Omit<Settings, 'chat'>>) =>
      unwrap(await api.PUT('/api/v1/keys/api/settings', { headers: serviceHeaders(serviceId), body })),
    onSuccess: () => {
      refresh();
      notifySuccess('Settings saved');
      setWebhookUrl('');
      setRevealed(null);
      setConfirmRemoveWebhook(false);
    },
    onError: notifyError,
  });
  const reveal = useMutation({
    mutationFn: async () => unwrap(await api.GET('/api/v1/services/{id}/webhook', { params: { path: { id: serviceId } } })),
    onSuccess: (data) => setRevealed(data.webhookUrl ?? ''),
    onError: notifyError,
  });
  const test = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/keys/api/webhook', { headers: serviceHeaders(serviceId), body: { content: testMessage } })),
    onSuccess: async (r) => {
      if (r.delivered) return notifySuccess(describeTestOutcome(true, null));
      // The 202 says only "queued": the newest outbox message's last error says why.
      const rows = await outbox.refetch();
      const newest = rows.data?.items[0];
      notifyError(new Error(describeTestOutcome(false, newest?.lastError)));
    },
    onError: notifyError,
  });
  const outbox = useQuery({
    queryKey: ['webhook-outbox', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/webhook/outbox', { headers: serviceHeaders(serviceId) })),
    retry: false,
  });
  const outboxRows: OutboxRow[] | null = outbox.data ? outbox.data.items : null;

  return (
    <Stack>
      <Section title="Webhook">
        <Stack>
          <Text size="sm">
            Current URL:{' '}
            {(revealed ?? s.webhookUrl) === null ? (
              'not set yet'
            ) : (
              <Text span ff="monospace">
                {revealed ?? s.webhookUrl}
              </Text>
            )}
          </Text>
          <Group gap="xs">
            {s.webhookUrl && revealed === null && (
              <Button size="xs" variant="light" onClick={() => reveal.mutate()} loading={reveal.isPending}>
                Reveal webhook URL
              </Button>
            )}
            {s.webhookUrl && (
              <Button size="xs" variant="light" color="red" onClick={() => setConfirmRemoveWebhook(true)}>
                Remove webhook
              </Button>
            )}
          </Group>
          <Switch
            label="Webhook enabled"
            checked={s.webhookEnabled}
            onChange={(e) => update.mutate({ webhookEnabled: e.currentTarget.checked })}
          />
          <form
            onSubmit={(e) => {
              e.preventDefault();
              update.mutate({ webhookUrl: webhookUrl.trim() });
            }}
          >
            <Group align="flex-end" gap="xs" wrap="wrap">
              <TextInput
                label="Webhook URL"
                placeholder="https://discord.com/api/webhooks/…"
                value={webhookUrl}
                onChange={(e) => setWebhookUrl(e.currentTarget.value)}
                style={{ flex: '1 1 260px' }}
                required
              />
              <Button type="submit" loading={update.isPending}>
                Save webhook
              </Button>
            </Group>
          </form>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              test.mutate();
            }}
          >
            <Group align="flex-end" gap="xs" wrap="wrap">
              <TextInput
                label="Test message"
                maxLength={2000}
                value={testMessage}
                onChange={(e) => setTestMessage(e.currentTarget.value)}
                style={{ flex: '1 1 260px' }}
                required
              />
              <Button type="submit" variant="light" loading={test.isPending} disabled={!s.webhookUrl}>
                Send test message
              </Button>
            </Group>
          </form>
          <Divider label="Message queue" labelPosition="left" />
          {outbox.isPending ? (
            <Loading label="Loading the outbox" />
          ) : outbox.isError || !outboxRows ? (
            <ErrorState error={outbox.error} retry={() => void outbox.refetch()} />
          ) : (
            <>
              {outboxRows.length === 0 ? (
                <Text size="sm" c="dimmed">
                  Nothing waiting: every message was delivered.
                </Text>
              ) : (
                <Table fz="xs" aria-label="Webhook outbox">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Status</Table.Th>
                      <Table.Th>Attempts</Table.Th>
                      <Table.Th>Next attempt</Table.Th>
                      <Table.Th>Last error</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {outboxRows.map((row) => (
                      <Table.Tr key={String(row.id)}>
                        <Table.Td>{outboxStatusLabel(row.status)}</Table.Td>
                        <Table.Td>{row.attempts ?? '—'}</Table.Td>
                        <Table.Td>{row.nextAttemptAt ? new Date(row.nextAttemptAt).toLocaleString() : '—'}</Table.Td>
                        <Table.Td>{row.lastError ?? ''}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
            </>
          )}
        </Stack>
      </Section>

      <Section title="HWID reset cooldowns">
        <Text size="sm" mb="xs">
          Buyers reset their own HWID on{' '}
          <Anchor href={`/reset/${info.identifier}`} target="_blank" rel="noreferrer">
            {`${window.location.origin}/reset/${info.identifier}`}
          </Anchor>{' '}
          (share this link); the cooldowns below apply there.
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setTriedCooldowns(true);
            // -3 or 99999 is refused here with a sentence, never saved as 0 or 720.
            if (rangeProblem(free, COOLDOWN.free) || rangeProblem(premium, COOLDOWN.premium)) return;
            update.mutate({ hwidResetCooldownFreeHours: Number(free), hwidResetCooldownPremiumHours: Number(premium) });
          }}
        >
          <Group align="flex-start" gap="xs" wrap="wrap">
            <RangeInput range={COOLDOWN.free} value={free} onChange={setFree} showEmpty={triedCooldowns} required />
            <RangeInput range={COOLDOWN.premium} value={premium} onChange={setPremium} showEmpty={triedCooldowns} required />
            <Button type="submit" loading={update.isPending}>
              Save cooldowns
            </Button>
          </Group>
        </form>
      </Section>

      <Section title="Live sessions">
        <Text size="sm" mb="xs">
          A running script checks in this often; a banned or paused key is stopped at its next check, and a device that misses two check-ins
          frees its place. Shorter stops buyers sooner, longer sends fewer requests.
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setTriedHeartbeat(true);
            if (rangeProblem(heartbeatSeconds, HEARTBEAT)) return;
            update.mutate({ sessionHeartbeatSeconds: Number(heartbeatSeconds) });
          }}
        >
          <Group align="flex-start" gap="xs" wrap="wrap">
            <RangeInput range={HEARTBEAT} value={heartbeatSeconds} onChange={setHeartbeatSeconds} showEmpty={triedHeartbeat} required />
            <Button type="submit" loading={update.isPending}>
              Save heartbeat
            </Button>
          </Group>
        </form>
      </Section>

      <Section title="Discord">
        <Text size="sm">
          The Discord server, the buyer panel, staff commands, the staff log channel and the buyer role are set up on the{' '}
          <Anchor component={Link} to={sectionPath(serviceId, 'discord')}>
            Discord page
          </Anchor>
          .
        </Text>
      </Section>

      <SigningSection serviceId={serviceId} />

      <ConfirmDialog
        opened={confirmRemoveWebhook}
        title="Remove webhook"
        onClose={() => setConfirmRemoveWebhook(false)}
        busy={update.isPending}
        onConfirm={() => update.mutate({ webhookUrl: null })}
      >
        Notifications stop until you set a new webhook URL.
      </ConfirmDialog>
    </Stack>
  );
}

export default function SettingsPage() {
  const serviceId = useServiceId();
  const info = useQuery({
    queryKey: ['service-info', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/service/info', { headers: serviceHeaders(serviceId) })),
  });
  return (
    <>
      <PageHeader title="Settings" />
      {info.isPending ? (
        <Loading label="Loading settings" />
      ) : info.isError ? (
        <ErrorState error={info.error} retry={() => void info.refetch()} />
      ) : (
        <SettingsForm info={info.data} serviceId={serviceId} />
      )}
      {info.isError && <Text size="sm">{messageOf(info.error)}</Text>}
    </>
  );
}
