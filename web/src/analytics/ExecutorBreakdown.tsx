import { Paper, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, serviceHeaders, unwrap } from '../api/client';
import { Empty, ErrorState, Loading } from '../components/states';
import { verdictLabel } from '../lib/labels';

/** Verdict names, with the executor rule's refusal (contract §29) in words too. */
export const codeLabel = (code: string) => (code === 'EXECUTOR_UNSUPPORTED' ? 'Executor not supported by the script' : verdictLabel(code));

type ExecutorItem = {
  executor: string;
  executions: number;
  valid: number;
  refused: Record<string, number>;
  peakSessions: number;
  lastSeen: string;
};

/** How the two names that are not an executor's own read to a seller. */
const executorName = (name: string) =>
  name === 'unknown' ? 'Not named by the executor' : name === 'other' ? 'Other names (over 200 a day)' : name;
/** The same, short enough for the chart's axis at 375 px. */
const shortName = (name: string) => (name === 'unknown' ? 'No name sent' : name === 'other' ? 'Other names' : name);
const REFUSAL_COLORS = ['#fa5252', '#fd7e14', '#fab005', '#be4bdb'];
const SHOWN = 10;

/**
 * Which executors the buyers run and where they fail (contract §29): one bar per executor, its valid runs and its
 * refusals by the commonest reasons, and one sentence saying the same in words. The names are the buyers' own claims.
 */
export function ExecutorBreakdown({ serviceId, from, to }: { serviceId: string; from: string; to: string }) {
  const seen = useQuery({
    queryKey: ['analytics-executors', serviceId, from, to],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/keys/api/analytics/executors', { headers: serviceHeaders(serviceId), params: { query: { from, to } } }),
      ),
    placeholderData: keepPreviousData,
  });
  const items: ExecutorItem[] = seen.data?.items ?? [];
  const refusedOf = (item: ExecutorItem) => Object.values(item.refused).reduce((a, b) => a + b, 0);
  // The reasons drawn as their own colours: the commonest four over the executors shown; the rest are one more.
  const shown = items.slice(0, SHOWN);
  const reasonTotals = new Map<string, number>();
  for (const item of shown) for (const [code, n] of Object.entries(item.refused)) reasonTotals.set(code, (reasonTotals.get(code) ?? 0) + n);
  const reasons = [...reasonTotals].sort((a, b) => b[1] - a[1]).map(([code]) => code);
  const drawn = reasons.slice(0, REFUSAL_COLORS.length);
  const rows = shown.map((item) => {
    const row: Record<string, string | number> = { name: shortName(item.executor), valid: item.valid };
    let rest = refusedOf(item);
    for (const code of drawn) {
      row[code] = item.refused[code] ?? 0;
      rest -= item.refused[code] ?? 0;
    }
    if (reasons.length > drawn.length) row.otherRefusals = rest;
    return row;
  });
  const runs = items.reduce((n, i) => n + i.valid + refusedOf(i), 0);
  const top = items[0];
  const worst = [...items].filter((i) => refusedOf(i) > 0).sort((a, b) => refusedOf(b) - refusedOf(a))[0];
  const worstReason = worst ? Object.entries(worst.refused).sort((a, b) => b[1] - a[1])[0]![0] : null;
  return (
    <Paper withBorder p="sm" component="section" aria-label="Executors">
      <Title order={3} size="h5">
        Executors your buyers run
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        As each executor names itself (the buyer&apos;s own claim), by whole days.
      </Text>
      {seen.isPending ? (
        <Loading label="Loading executors" />
      ) : seen.isError ? (
        <ErrorState error={seen.error} retry={() => void seen.refetch()} />
      ) : items.length === 0 ? (
        <Empty title="No runs in this range" />
      ) : (
        <Stack gap="xs">
          <Text size="sm" data-testid="executor-summary">
            {top && runs > 0 && (
              <>
                Most runs: <b>{executorName(top.executor)}</b> ({Math.round(((top.valid + refusedOf(top)) / runs) * 100)}% of{' '}
                {runs.toLocaleString()}).{' '}
              </>
            )}
            {worst && worstReason ? (
              <>
                Most refusals: <b>{executorName(worst.executor)}</b>, {refusedOf(worst).toLocaleString()} refused, mostly “
                {codeLabel(worstReason)}”.
              </>
            ) : (
              'No executor was refused.'
            )}
          </Text>
          <div role="figure" aria-label="Valid and refused runs by executor" style={{ width: '100%', height: 60 + rows.length * 34 }}>
            <ResponsiveContainer>
              <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 4 }}>
                <CartesianGrid strokeDasharray="3 3" opacity={0.3} horizontal={false} />
                <XAxis type="number" allowDecimals={false} fontSize={12} />
                <YAxis
                  type="category"
                  dataKey="name"
                  width={110}
                  fontSize={12}
                  tickFormatter={(v: string) => (v.length > 16 ? `${v.slice(0, 15)}…` : v)}
                />
                <Tooltip />
                {/* Labels in the text colour (a yellow label is unreadable) and in the bars' order, valid first. */}
                <Legend
                  wrapperStyle={{ fontSize: 12 }}
                  itemSorter={null}
                  formatter={(value: string) => <span style={{ color: 'var(--mantine-color-text)' }}>{value}</span>}
                />
                <Bar dataKey="valid" name="Valid" stackId="runs" fill="#40c057" isAnimationActive={false} />
                {drawn.map((code, i) => (
                  <Bar key={code} dataKey={code} name={codeLabel(code)} stackId="runs" fill={REFUSAL_COLORS[i]} isAnimationActive={false} />
                ))}
                {reasons.length > drawn.length && (
                  <Bar dataKey="otherRefusals" name="Other refusals" stackId="runs" fill="#868e96" isAnimationActive={false} />
                )}
              </BarChart>
            </ResponsiveContainer>
          </div>
          <Table fz="sm" aria-label="Runs by executor">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Executor</Table.Th>
                <Table.Th ta="right">Executions</Table.Th>
                <Table.Th ta="right">Valid</Table.Th>
                <Table.Th ta="right">Refused</Table.Th>
                <Table.Th ta="right" visibleFrom="sm">
                  Most at once
                </Table.Th>
                <Table.Th visibleFrom="sm">Last run</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((item) => (
                <Table.Tr key={item.executor}>
                  <Table.Td>{executorName(item.executor)}</Table.Td>
                  <Table.Td ta="right">{item.executions.toLocaleString()}</Table.Td>
                  <Table.Td ta="right">{item.valid.toLocaleString()}</Table.Td>
                  <Table.Td
                    ta="right"
                    title={Object.entries(item.refused)
                      .map(([c, n]) => `${codeLabel(c)}: ${n}`)
                      .join('\n')}
                  >
                    {refusedOf(item).toLocaleString()}
                  </Table.Td>
                  <Table.Td ta="right" visibleFrom="sm">
                    {item.peakSessions.toLocaleString()}
                  </Table.Td>
                  <Table.Td visibleFrom="sm">{new Date(item.lastSeen).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </Paper>
  );
}
