import { ActionIcon, Badge, Button, Checkbox, CopyButton, Group, ScrollArea, Table, Text } from '@mantine/core';
import type { Pending } from './BulkBar';
import type { KeyRecord } from './records';
import { describeExpiry } from './types';

/** One row per key (contract §9): the key string opens its drawer; row actions and checkboxes. */
export function KeysTable({
  items,
  selected,
  toggle,
  toggleAll,
  setPending,
  openDetail,
}: {
  items: KeyRecord[];
  selected: Set<string>;
  toggle: (key: string) => void;
  toggleAll: () => void;
  setPending: (pending: Pending) => void;
  openDetail: (record: KeyRecord) => void;
}) {
  const pageKeys = items.map((k) => k.key);
  const allSelected = pageKeys.length > 0 && pageKeys.every((k) => selected.has(k));
  return (
    <ScrollArea type="auto">
      <Table striped highlightOnHover aria-label="Keys" miw={900} style={{ whiteSpace: 'nowrap' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={36}>
              <Checkbox
                aria-label="Select all keys on this page"
                checked={allSelected}
                indeterminate={!allSelected && pageKeys.some((k) => selected.has(k))}
                onChange={toggleAll}
              />
            </Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>HWIDs</Table.Th>
            <Table.Th>Note</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th>Last used</Table.Th>
            <Table.Th>Runs</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((record) => (
            <Table.Tr key={record.key}>
              <Table.Td>
                <Checkbox aria-label={`Select ${record.key}`} checked={selected.has(record.key)} onChange={() => toggle(record.key)} />
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Text
                    component="button"
                    type="button"
                    ff="monospace"
                    size="sm"
                    onClick={() => openDetail(record)}
                    style={{ background: 'none', border: 0, padding: 0, cursor: 'pointer', color: 'inherit' }}
                    title="Details and edit"
                  >
                    {record.key}
                  </Text>
                  <CopyButton value={record.key}>
                    {({ copied, copy }) => (
                      <ActionIcon size="sm" variant="subtle" aria-label={`Copy ${record.key}`} onClick={copy}>
                        <svg
                          width="14"
                          height="14"
                          viewBox="0 0 24 24"
                          fill="none"
                          stroke="currentColor"
                          strokeWidth="2"
                          aria-hidden="true"
                        >
                          {copied ? (
                            <path d="M5 12l5 5L20 7" />
                          ) : (
                            <>
                              <rect x="9" y="9" width="11" height="11" rx="2" />
                              <path d="M5 15V5a2 2 0 0 1 2-2h10" />
                            </>
                          )}
                        </svg>
                      </ActionIcon>
                    )}
                  </CopyButton>
                </Group>
              </Table.Td>
              <Table.Td>{record.type}</Table.Td>
              {/* Wide enough for "active" and "premium" side by side: a narrow window squeezed the badge to "A…". */}
              <Table.Td miw={150} style={{ whiteSpace: 'nowrap' }}>
                <Badge
                  size="sm"
                  variant="light"
                  color={record.status === 'active' ? 'green' : record.status === 'banned' ? 'red' : 'yellow'}
                >
                  {record.status}
                </Badge>
                {record.isPremium && (
                  <Badge size="sm" ml={4} variant="outline">
                    premium
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{`${record.type === 'active' ? record.hwids.length : 0}/${record.maxHwids}`}</Table.Td>
              <Table.Td maw={180} style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                {record.note}
              </Table.Td>
              <Table.Td title={record.expiresAt ?? 'Lifetime'}>{describeExpiry(record.expiresAt)}</Table.Td>
              <Table.Td>{record.type === 'active' && record.lastUsedAt ? new Date(record.lastUsedAt).toLocaleDateString() : '—'}</Table.Td>
              <Table.Td>{record.type === 'active' ? record.executions : 0}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button size="compact-xs" variant="subtle" onClick={() => setPending({ action: 'resetHwid', keys: [record.key] })}>
                    Reset HWID
                  </Button>
                  <Button size="compact-xs" variant="subtle" onClick={() => setPending({ action: 'extend', keys: [record.key] })}>
                    Extend
                  </Button>
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    color="orange"
                    onClick={() => setPending({ action: 'ban', keys: [record.key] })}
                  >
                    Ban
                  </Button>
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    color="red"
                    onClick={() => setPending({ action: 'delete', keys: [record.key] })}
                  >
                    Delete
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
