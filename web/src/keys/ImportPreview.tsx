import { Badge, Group, ScrollArea, Stack, Table, Text } from '@mantine/core';
export interface PreviewData {
  format: string;
  counts: { active: number; generated: number; banned: number; expired: number };
  fields: string[];
  ignored: string[];
  sample: Array<{
    key: string;
    type: string;
    status: string;
    hwids: string[];
    note: string | null;
    expiresAt: string | null;
    executions: number;
    hwidResetAt: string | null;
  }>;
  existing: string[];
}

/** The words for what an import stores, used by the preview and by the toast after it (contract §27). */
export function describeCounts(c: PreviewData['counts']): string {
  const parts = [
    [c.active, 'active'],
    [c.generated, 'unused'],
    [c.banned, 'banned'],
    [c.expired, 'expired'],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(([n, word]) => `${n} ${word}`)
    .join(', ');
}

export const totalOf = (c: PreviewData['counts']) => c.active + c.generated + c.banned + c.expired;

const day = (at: string | null) => (at ? at.slice(0, 10) : '—');

/** What the server read from the file before anything is written: the seller checks it, then confirms. */
export function ImportPreview({ preview: p }: { preview: PreviewData }) {
  const total = totalOf(p.counts);
  return (
    <Stack gap="xs" aria-label="Import preview" role="region">
      <Text size="sm" fw={500}>
        {total} key{total === 1 ? '' : 's'} to import: {describeCounts(p.counts) || 'none'}
      </Text>
      <Group gap={4}>
        <Text size="xs" c="dimmed">
          Fields read:
        </Text>
        {p.fields.map((name) => (
          <Badge key={name} size="xs" variant="light" tt="none">
            {name}
          </Badge>
        ))}
      </Group>
      {p.ignored.length > 0 && (
        <Text size="xs" c="dimmed">
          Ignored: {p.ignored.join(', ')}
        </Text>
      )}
      <ScrollArea.Autosize mah={220}>
        <Table fz="xs" aria-label="Import sample" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="40%">Key</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>HWID</Table.Th>
              <Table.Th>Expires</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.sample.map((k) => (
              <Table.Tr key={k.key}>
                <Table.Td style={{ wordBreak: 'break-all' }}>{k.key}</Table.Td>
                <Table.Td>{k.status === 'banned' ? 'banned' : k.type === 'active' ? 'active' : 'unused'}</Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>{k.hwids[0] ?? '—'}</Table.Td>
                <Table.Td>{k.expiresAt ? day(k.expiresAt) : 'never'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
      {p.existing.length > 0 && (
        <Text size="xs" c="orange" role="status">
          Already on the server ({p.existing.length}): {p.existing.slice(0, 10).join(', ')}
          {p.existing.length > 10 ? ` and ${p.existing.length - 10} more` : ''}.
        </Text>
      )}
    </Stack>
  );
}
