import { Alert, Anchor, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, serviceHeaders, unwrap } from '../api/client';
import { ErrorState, Loading, PageHeader } from '../components/states';
import { Section } from '../components/Section';
import { attentionItems, sparklinePoints, todayUtc } from '../lib/overview';
import { useServiceId } from '../services/useServiceId';

function Sparkline({ values, label }: { values: number[]; label: string }) {
  return (
    <svg width="100%" height="32" viewBox="0 0 120 32" preserveAspectRatio="none" role="img" aria-label={label}>
      <polyline points={sparklinePoints(values, 120, 30)} fill="none" stroke="var(--mantine-primary-color-filled)" strokeWidth="2" />
    </svg>
  );
}

function Stat({ title, value, hint, children }: { title: string; value: number | undefined; hint: string; children?: React.ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={title}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {title}
      </Text>
      <Text fz={28} fw={700}>
        {value === undefined ? '…' : value.toLocaleString()}
      </Text>
      <Text size="xs" c="dimmed">
        {hint}
      </Text>
      {children}
    </Paper>
  );
}

/** Where a service opens (contract §15): its numbers today and what needs attention. */
export default function OverviewPage() {
  const serviceId = useServiceId();
  const headers = serviceHeaders(serviceId);
  const status = useQuery({
    queryKey: ['overview-status', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/service/status', { headers })),
  });
  const today = useQuery({
    queryKey: ['overview-today', serviceId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/keys/api/analytics', { headers, params: { query: { ...todayUtc(Date.now()), interval: 'hour' } } })),
  });
  const week = useQuery({
    queryKey: ['overview-week', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/analytics', { headers, params: { query: { interval: 'day' } } })),
  });
  const failed = useQuery({
    queryKey: ['overview-failed', serviceId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/keys/api/webhook/outbox', { headers, params: { query: { status: 'failed', limit: '1' } } })),
    retry: false,
  });
  const keySystem = useQuery({
    queryKey: ['key-system', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/key-system', { headers })),
  });
  const info = useQuery({
    queryKey: ['service-info', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/service/info', { headers })),
  });

  if (status.isError) return <ErrorState error={status.error} retry={() => void status.refetch()} />;
  if (status.isPending) return <Loading label="Loading the overview" />;

  const sum = (key: 'validations' | 'executions') => today.data?.series.reduce((total, bucket) => total + bucket[key], 0);
  const weekly = (key: 'validations' | 'executions') => week.data?.series.map((bucket) => bucket[key]) ?? [];
  const baseUrl = keySystem.data ? new URL(keySystem.data.pageUrl).origin : null;
  const attention = attentionItems({
    failedWebhookMessages: failed.data?.total ?? 0,
    baseUrl,
    dashboardOrigin: window.location.origin,
  });
  const identifier = info.data?.identifier;
  return (
    <>
      <PageHeader title="Overview" />
      <Stack>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }}>
          <Stat title="Active keys" value={status.data.activeKeys} hint="In use on a device" />
          <Stat title="Generated keys" value={status.data.generatedKeys} hint="Not used yet" />
          <Stat title="Live now" value={status.data.liveSessions} hint="Scripts running with a live session at this moment" />
          <Stat title="Executions today" value={sum('executions')} hint="Since midnight UTC; the line: last 7 days">
            <Sparkline values={weekly('executions')} label="Executions over the last 7 days" />
          </Stat>
          <Stat title="Validations today" value={sum('validations')} hint="Key checks since midnight UTC; the line: last 7 days">
            <Sparkline values={weekly('validations')} label="Validations over the last 7 days" />
          </Stat>
        </SimpleGrid>
        <Section title="Needs attention">
          {attention.length === 0 ? (
            <Text size="sm">Nothing needs your attention.</Text>
          ) : (
            <Stack gap="xs">
              {attention.map((item) => (
                <Alert key={item.text} color={item.tone} variant="light" p="xs">
                  {item.text}
                </Alert>
              ))}
            </Stack>
          )}
        </Section>
        <Section title="Links for your buyers">
          <Stack gap={4}>
            <Group gap="xs">
              <Text size="sm">Self-serve HWID reset:</Text>
              {identifier && (
                <Anchor size="sm" href={`/reset/${identifier}`} target="_blank" rel="noreferrer">
                  {`${window.location.origin}/reset/${identifier}`}
                </Anchor>
              )}
            </Group>
            <Group gap="xs">
              <Text size="sm">Get-key page:</Text>
              {keySystem.data?.enabled ? (
                <Anchor size="sm" href={keySystem.data.pageUrl} target="_blank" rel="noreferrer">
                  {keySystem.data.pageUrl}
                </Anchor>
              ) : (
                <Text size="sm" c="dimmed">
                  off —{' '}
                  <Anchor component={Link} to={`/services/${serviceId}/key-system`} size="sm">
                    set up the key system
                  </Anchor>
                </Text>
              )}
            </Group>
          </Stack>
        </Section>
        <Title order={2} size="h5" c="dimmed">
          Next steps: generate keys in Keys, upload a script in Scripts and copy its loadstring for your buyers.
        </Title>
      </Stack>
    </>
  );
}
