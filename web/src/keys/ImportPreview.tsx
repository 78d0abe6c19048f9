import { Alert, Badge, Group, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
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
    durationDays?: number | null;
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

type Sample = PreviewData['sample'][number];

/** In the words of the counts above: an expired key is not "active", and a key that was never used is "unused". */
const statusOf = (k: Sample) =>
  k.status === 'banned'
    ? 'banned'
    : k.expiresAt && Date.parse(k.expiresAt) <= Date.now()
      ? 'expired'
      : k.type === 'active'
        ? 'active'
        : 'unused';

/** A Luarmor key_days key runs from its first use: "never" there read as a lifetime key. */
const expiresOf = (k: Sample) =>
  k.durationDays ? `${k.durationDays} days from first use` : k.expiresAt ? k.expiresAt.slice(0, 10) : 'never (lifetime)';

/**
 * Whether the import as previewed would be refused: keys already on the server, and "Skip keys that already exist"
 * not ticked (the server then imports nothing, contract §7.4).
 */
export const blockedBy = (p: PreviewData, skipping: boolean) => (skipping ? 0 : p.existing.length);

const listed = (keys: string[]) => `${keys.slice(0, 10).join(', ')}${keys.length > 10 ? ` and ${keys.length - 10} more` : ''}`;

/** What the server read from the file before anything is written: the seller checks it, then confirms. */
export function ImportPreview({ preview: p, skipping }: { preview: PreviewData; skipping: boolean }) {
  const total = totalOf(p.counts);
  const blocked = blockedBy(p, skipping);
  const narrow = useMediaQuery('(max-width: 36em)', false, { getInitialValueInEffect: false });
  return (
    <Stack gap="xs" aria-label="Import preview" role="region">
      {blocked > 0 ? (
        // Said first and plainly: a seller who pressed Import here got "nothing was imported" with no way forward on screen.
        <Alert color="orange" variant="light" p="xs" role="status" title="Nothing can be imported as it is">
          <Text size="sm">
            {blocked === 1 ? '1 key in this file is' : `${blocked} keys in this file are`} already on the server: {listed(p.existing)}. Tick
            “Skip keys that already exist” and preview again to import the other {total - blocked}.
          </Text>
        </Alert>
      ) : (
        <Text size="sm" fw={500}>
          {total} key{total === 1 ? '' : 's'} to import: {describeCounts(p.counts) || 'none'}
        </Text>
      )}
      {blocked === 0 && p.existing.length > 0 && (
        <Text size="xs" c="dimmed" role="status">
          Skipped, already on the server ({p.existing.length}): {listed(p.existing)}.
        </Text>
      )}
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
      <Text size="xs" c="dimmed">
        The first {p.sample.length} as they will be stored:
      </Text>
      <ScrollArea.Autosize mah={220}>
        {narrow ? (
          // On a phone four columns left a 40-character HWID six lines tall: one record per row, its facts on lines.
          <Table fz="xs" aria-label="Import sample">
            <Table.Tbody>
              {p.sample.map((k) => (
                <Table.Tr key={k.key}>
                  <Table.Td style={{ wordBreak: 'break-all' }}>
                    <Text size="xs" fw={600}>
                      {k.key}
                    </Text>
                    <Text size="xs">
                      {statusOf(k)} · expires: {expiresOf(k)}
                    </Text>
                    <Text size="xs" c="dimmed">
                      HWID: {k.hwids[0] ?? 'none yet'}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : (
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
                  <Table.Td>{statusOf(k)}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{k.hwids[0] ?? '—'}</Table.Td>
                  <Table.Td>{expiresOf(k)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </ScrollArea.Autosize>
    </Stack>
  );
}
