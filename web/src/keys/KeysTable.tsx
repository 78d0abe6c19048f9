import type { ReactNode } from 'react';
import { ActionIcon, Badge, Checkbox, CopyButton, Group, Menu, Table, Text, Tooltip } from '@mantine/core';
import type { Pending } from './BulkBar';
import type { KeyRecord } from './records';
import { describeKeyExpiry } from './types';
import classes from './KeysTable.module.css';
import type { ServiceAction } from '../services/access';

const icon = (path: ReactNode) => (
  <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
    {path}
  </svg>
);
const ICONS = {
  resetHwid: icon(
    <>
      <path d="M3 12a9 9 0 1 0 3-6.7" />
      <path d="M3 3v6h6" />
    </>,
  ),
  extend: icon(
    <>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7v5l3 2" />
    </>,
  ),
  ban: icon(
    <>
      <circle cx="12" cy="12" r="9" />
      <path d="M5.6 5.6l12.8 12.8" />
    </>,
  ),
  delete: icon(<path d="M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13" />),
  more: icon(
    <>
      <circle cx="5" cy="12" r="1.5" />
      <circle cx="12" cy="12" r="1.5" />
      <circle cx="19" cy="12" r="1.5" />
    </>,
  ),
};

/**
 * What a seller needs from type and status together, in one badge: a generated key is "Not used yet",
 * a redeemed one "In use"; paused or banned say so. ("Type: active" beside "Status: ACTIVE" read as the same thing twice.)
 */
export function keyState(record: Pick<KeyRecord, 'type' | 'status'>): { label: string; color: string } {
  if (record.status === 'banned') return { label: 'Banned', color: 'red' };
  if (record.status === 'paused') return { label: 'Paused', color: 'yellow' };
  return record.type === 'generated' ? { label: 'Not used yet', color: 'gray' } : { label: 'In use', color: 'green' };
}

function RowAction({ label, color, onClick, children }: { label: string; color?: string; onClick: () => void; children: ReactNode }) {
  return (
    <Tooltip label={label} withArrow openDelay={300}>
      <ActionIcon variant="subtle" color={color} size="md" aria-label={label} onClick={onClick}>
        {children}
      </ActionIcon>
    </Tooltip>
  );
}

/**
 * One row per key (contract §9): the key string opens its drawer; the row actions are named icon buttons
 * (Reset HWID, Extend, Ban, Delete) plus a menu for the rest, so all of them fit at 1280 px; on a phone each
 * row is a card (the table's own roles are kept, so it stays a table to a screen reader).
 */
export function KeysTable({
  items,
  selected,
  toggle,
  toggleAll,
  setPending,
  openDetail,
  can = () => true,
}: {
  items: KeyRecord[];
  selected: Set<string>;
  toggle: (key: string) => void;
  toggleAll: () => void;
  setPending: (pending: Pending) => void;
  openDetail: (record: KeyRecord) => void;
  /** What the caller's role allows (contract §21): the row actions it may not use are not shown. */
  can?: (action: ServiceAction) => boolean;
}) {
  const pageKeys = items.map((k) => k.key);
  const allSelected = pageKeys.length > 0 && pageKeys.every((k) => selected.has(k));
  return (
    <Table striped highlightOnHover aria-label="Keys" role="table" className={classes.table} fz="sm">
      <Table.Thead role="rowgroup">
        <Table.Tr role="row">
          <Table.Th w={36} role="columnheader">
            <Group gap="xs" wrap="nowrap">
              <Checkbox
                aria-label="Select all keys on this page"
                checked={allSelected}
                indeterminate={!allSelected && pageKeys.some((k) => selected.has(k))}
                onChange={toggleAll}
              />
              {/* On a phone the header row is only this box: say what it does. */}
              <Text size="sm" className={classes.narrowOnly} aria-hidden="true">
                Select all on this page
              </Text>
            </Group>
          </Table.Th>
          <Table.Th role="columnheader">Key</Table.Th>
          <Table.Th role="columnheader">Status</Table.Th>
          <Table.Th role="columnheader">HWIDs</Table.Th>
          <Table.Th role="columnheader">Note</Table.Th>
          <Table.Th role="columnheader">Expires</Table.Th>
          <Table.Th role="columnheader" className={classes.wideOnly}>
            Last used
          </Table.Th>
          <Table.Th role="columnheader">Actions</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody role="rowgroup">
        {items.map((record) => {
          const state = keyState(record);
          const active = record.type === 'active' ? record : null;
          const keys = [record.key];
          return (
            <Table.Tr key={record.key} role="row">
              <Table.Td role="cell">
                <Checkbox aria-label={`Select ${record.key}`} checked={selected.has(record.key)} onChange={() => toggle(record.key)} />
              </Table.Td>
              <Table.Td role="cell" className={classes.keyCell}>
                <Group gap={4} wrap="nowrap">
                  <Text
                    component="button"
                    type="button"
                    ff="monospace"
                    size="xs"
                    onClick={() => openDetail(record)}
                    style={{ background: 'none', border: 0, padding: 0, cursor: 'pointer', color: 'inherit', textAlign: 'left' }}
                    title="Details and edit"
                  >
                    {record.key}
                  </Text>
                  <CopyButton value={record.key}>
                    {({ copied, copy }) => (
                      <ActionIcon size="sm" variant="subtle" aria-label={`Copy ${record.key}`} onClick={copy}>
                        {icon(
                          copied ? (
                            <path d="M5 12l5 5L20 7" />
                          ) : (
                            <>
                              <rect x="9" y="9" width="11" height="11" rx="2" />
                              <path d="M5 15V5a2 2 0 0 1 2-2h10" />
                            </>
                          ),
                        )}
                      </ActionIcon>
                    )}
                  </CopyButton>
                </Group>
              </Table.Td>
              <Table.Td role="cell" data-label="Status">
                <Badge size="sm" variant="light" tt="none" color={state.color}>
                  {state.label}
                </Badge>
                {record.isPremium && (
                  <Badge size="sm" ml={4} variant="outline" tt="none">
                    Premium
                  </Badge>
                )}
              </Table.Td>
              <Table.Td role="cell" data-label="HWIDs">{`${active ? active.hwids.length : 0}/${record.maxHwids}`}</Table.Td>
              <Table.Td role="cell" data-label="Note" className={classes.note} title={record.note ?? undefined}>
                {record.note ?? ''}
              </Table.Td>
              <Table.Td role="cell" data-label="Expires" title={record.expiresAt ?? describeKeyExpiry(record)}>
                {describeKeyExpiry(record)}
              </Table.Td>
              <Table.Td role="cell" data-label="Last used" className={classes.wideOnly}>
                {active?.lastUsedAt ? new Date(active.lastUsedAt).toLocaleDateString() : '—'}
              </Table.Td>
              <Table.Td role="cell">
                <Group gap={2} wrap="nowrap">
                  {can('keys.support') && (
                    <RowAction label="Reset HWID" onClick={() => setPending({ action: 'resetHwid', keys })}>
                      {ICONS.resetHwid}
                    </RowAction>
                  )}
                  {can('keys.manage') && (
                    <RowAction label="Extend" onClick={() => setPending({ action: 'extend', keys })}>
                      {ICONS.extend}
                    </RowAction>
                  )}
                  {can('keys.support') && (
                    <RowAction label="Ban" color="orange" onClick={() => setPending({ action: 'ban', keys })}>
                      {ICONS.ban}
                    </RowAction>
                  )}
                  {can('keys.manage') && (
                    <RowAction label="Delete" color="red" onClick={() => setPending({ action: 'delete', keys })}>
                      {ICONS.delete}
                    </RowAction>
                  )}
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <ActionIcon variant="subtle" color="gray" aria-label={`More actions for ${record.key}`}>
                        {ICONS.more}
                      </ActionIcon>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item onClick={() => openDetail(record)}>Details and edit</Menu.Item>
                      {can('keys.support') &&
                        (record.status === 'active' ? (
                          <Menu.Item onClick={() => setPending({ action: 'pause', keys })}>Pause</Menu.Item>
                        ) : (
                          <Menu.Item onClick={() => setPending({ action: 'activate', keys })}>Activate</Menu.Item>
                        ))}
                      {can('keys.support') && <Menu.Item onClick={() => setPending({ action: 'setNote', keys })}>Set note</Menu.Item>}
                    </Menu.Dropdown>
                  </Menu>
                </Group>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
