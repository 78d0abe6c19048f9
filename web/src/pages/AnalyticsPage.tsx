import { useState } from 'react';
import { Alert, Button, Group, Paper, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, serviceHeaders, unwrap } from '../api/client';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { codeLabel, ExecutorBreakdown } from '../analytics/ExecutorBreakdown';
import { fromLocalInput, rangeProblem, toLocalInput, type Interval } from '../lib/analyticsRange';

/** Preset ranges, each with the interval it starts with (hours for the last day, days beyond); "Custom" takes any window. */
const RANGES = {
  '24h': { label: '24 hours', ms: 24 * 3_600_000, interval: 'hour' },
  '7d': { label: '7 days', ms: 7 * 86_400_000, interval: 'day' },
  '30d': { label: '30 days', ms: 30 * 86_400_000, interval: 'day' },
  '90d': { label: '90 days', ms: 90 * 86_400_000, interval: 'day' },
} as const;
type RangeName = keyof typeof RANGES;
type RangeChoice = RangeName | 'custom';

const presetWindow = (name: RangeName, now: number) => ({ start: now - RANGES[name].ms, end: now });

const SERIES = [
  { key: 'validations', name: 'Validations', color: '#228be6' },
  { key: 'valid', name: 'Valid', color: '#40c057' },
  { key: 'refused', name: 'Refused', color: '#fa5252' },
  { key: 'executions', name: 'Executions', color: '#7950f2' },
  { key: 'redemptions', name: 'Redemptions', color: '#fd7e14' },
] as const;

const LIVE = [
  { key: 'activeKeys', label: 'Active keys' },
  { key: 'generatedKeys', label: 'Keys not yet redeemed' },
  { key: 'keylessEntries', label: 'Keyless HWIDs' },
  { key: 'blacklistedHwids', label: 'Blacklisted HWIDs' },
  { key: 'totalExecutions', label: 'Executions (all time)' },
] as const;

/** The service's counts as they are now (the status route), refreshed every 10 seconds while the page is open. */
function LiveCounts({ serviceId }: { serviceId: string }) {
  const status = useQuery({
    queryKey: ['service-status', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/service/status', { headers: serviceHeaders(serviceId) })),
    refetchInterval: 10_000,
  });
  return (
    <Paper withBorder p="sm" mb="md" component="section" aria-label="Right now">
      <Title order={3} size="h5" mb="xs">
        Right now
      </Title>
      {status.isPending ? (
        <Loading label="Loading current counts" />
      ) : status.isError ? (
        <ErrorState error={status.error} retry={() => void status.refetch()} />
      ) : (
        <SimpleGrid cols={{ base: 2, sm: 5 }}>
          {LIVE.map((item) => (
            <div key={item.key}>
              <Text size="xs" c="dimmed" id={`live-${item.key}`}>
                {item.label}
              </Text>
              <Text fw={700} size="lg" aria-labelledby={`live-${item.key}`}>
                {status.data[item.key].toLocaleString()}
              </Text>
            </div>
          ))}
        </SimpleGrid>
      )}
    </Paper>
  );
}

export default function AnalyticsPage() {
  const serviceId = useServiceId();
  // At 375 px the five ranges fit only in the small size.
  const narrow = useMediaQuery('(max-width: 36em)') ?? false;
  const [range, setRange] = useState<RangeChoice>('7d');
  const [interval, setIntervalName] = useState<Interval>('day');
  // The window is fixed when it is picked, so the query key (and cache) stays stable.
  const [span, setSpan] = useState(() => presetWindow('7d', Date.now()));
  const [customFrom, setCustomFrom] = useState('');
  const [customTo, setCustomTo] = useState('');
  const customProblem = range === 'custom' ? rangeProblem(fromLocalInput(customFrom), fromLocalInput(customTo), interval) : null;
  const problem = rangeProblem(span.start, span.end, interval);
  const query = { from: new Date(span.start).toISOString(), to: new Date(span.end).toISOString(), interval };
  const data = useQuery({
    queryKey: ['analytics', serviceId, query],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/analytics', { headers: serviceHeaders(serviceId), params: { query } })),
    placeholderData: keepPreviousData,
    enabled: problem === null,
  });
  const pickRange = (value: RangeChoice) => {
    setRange(value);
    if (value === 'custom') {
      setCustomFrom(toLocalInput(new Date(span.start)));
      setCustomTo(toLocalInput(new Date(span.end)));
      return;
    }
    setIntervalName(RANGES[value].interval);
    setSpan(presetWindow(value, Date.now()));
  };
  const points = (data.data?.series ?? []).map((p) => ({
    ...p,
    label:
      data.data?.interval === 'hour'
        ? span.end - span.start > 86_400_000
          ? new Date(p.at).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
          : new Date(p.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
        : new Date(p.at).toLocaleDateString(),
  }));
  const totals = SERIES.map((s) => ({ key: s.key, total: points.reduce((sum, p) => sum + p[s.key], 0) }));
  return (
    <>
      <PageHeader title="Analytics">
        <SegmentedControl
          aria-label="Range"
          size={narrow ? 'xs' : 'sm'}
          value={range}
          onChange={(v) => pickRange(v as RangeChoice)}
          data={[...Object.entries(RANGES).map(([value, r]) => ({ value, label: r.label })), { value: 'custom', label: 'Custom' }]}
        />
        <SegmentedControl
          aria-label="Interval"
          size={narrow ? 'xs' : 'sm'}
          value={interval}
          onChange={(v) => setIntervalName(v as Interval)}
          data={[
            { value: 'hour', label: 'Hour' },
            { value: 'day', label: 'Day' },
          ]}
        />
      </PageHeader>
      {range === 'custom' && (
        <Paper withBorder p="sm" mb="md" component="section" aria-label="Custom range">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (!customProblem) setSpan({ start: fromLocalInput(customFrom), end: fromLocalInput(customTo) });
            }}
          >
            <Group align="flex-end" gap="xs" wrap="wrap">
              <TextInput type="datetime-local" label="From" value={customFrom} onChange={(e) => setCustomFrom(e.currentTarget.value)} />
              <TextInput type="datetime-local" label="To" value={customTo} onChange={(e) => setCustomTo(e.currentTarget.value)} />
              <Button type="submit" variant="light" disabled={customProblem !== null}>
                Show range
              </Button>
            </Group>
            {customProblem && (
              <Text c="red" size="sm" mt="xs" role="alert">
                {customProblem}
              </Text>
            )}
          </form>
        </Paper>
      )}
      <LiveCounts serviceId={serviceId} />
      {problem ? (
        <Alert color="yellow" title="Cannot draw this range" role="alert">
          {problem}
        </Alert>
      ) : data.isPending ? (
        <Loading label="Loading analytics" />
      ) : data.isError ? (
        <ErrorState error={data.error} retry={() => void data.refetch()} />
      ) : (
        <Stack>
          <SimpleGrid cols={{ base: 2, sm: 5 }}>
            {totals.map((t) => (
              <Paper withBorder p="sm" key={t.key}>
                <Text size="xs" c="dimmed" tt="capitalize">
                  {t.key}
                </Text>
                <Text fw={700} size="lg">
                  {t.total.toLocaleString()}
                </Text>
              </Paper>
            ))}
          </SimpleGrid>
          <Paper withBorder p="sm" role="figure" aria-label="Executions and validations over time">
            <div style={{ width: '100%', height: 320 }}>
              <ResponsiveContainer>
                <LineChart data={points} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" opacity={0.3} />
                  <XAxis dataKey="label" fontSize={12} minTickGap={24} />
                  <YAxis allowDecimals={false} fontSize={12} />
                  <Tooltip />
                  <Legend />
                  {SERIES.map((s) => (
                    <Line
                      key={s.key}
                      type="monotone"
                      dataKey={s.key}
                      name={s.name}
                      stroke={s.color}
                      dot={false}
                      isAnimationActive={false}
                    />
                  ))}
                </LineChart>
              </ResponsiveContainer>
            </div>
          </Paper>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Paper withBorder p="sm">
              <Title order={3} size="h5" mb="xs">
                Key check results
              </Title>
              {Object.keys(data.data.codes).length === 0 ? (
                <Empty title="No key checks in this range" />
              ) : (
                <Table fz="sm" aria-label="Key check results">
                  <Table.Tbody>
                    {Object.entries(data.data.codes)
                      .sort((a, b) => b[1] - a[1])
                      .map(([code, count]) => (
                        <Table.Tr key={code}>
                          <Table.Td>{codeLabel(code)}</Table.Td>
                          <Table.Td ta="right">{count.toLocaleString()}</Table.Td>
                        </Table.Tr>
                      ))}
                  </Table.Tbody>
                </Table>
              )}
            </Paper>
            <Paper withBorder p="sm">
              <Title order={3} size="h5" mb="xs">
                Executions by script
              </Title>
              {data.data.scripts.length === 0 ? (
                <Empty title="No executions in this range" />
              ) : (
                <Table fz="sm" aria-label="Executions by script">
                  <Table.Tbody>
                    {data.data.scripts.map((s) => (
                      <Table.Tr key={s.scriptId}>
                        <Table.Td>{s.name}</Table.Td>
                        <Table.Td ta="right">{s.executions.toLocaleString()}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
            </Paper>
          </SimpleGrid>
          <ExecutorBreakdown serviceId={serviceId} from={query.from} to={query.to} />
          <Group>
            <Text size="xs" c="dimmed">
              {new Date(span.start).toLocaleString()} – {new Date(span.end).toLocaleString()}, by {interval}. Counts reach this page up to a
              few seconds late. Times are UTC buckets shown in your time zone.
            </Text>
          </Group>
        </Stack>
      )}
    </>
  );
}
