import { useMemo, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import {
  ActionIcon,
  Badge,
  Button,
  Checkbox,
  CopyButton,
  Drawer,
  FileInput,
  Group,
  Menu,
  Modal,
  NativeSelect,
  NumberInput,
  Pagination,
  Paper,
  ScrollArea,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, messageOf, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import {
  PAGE_SIZES,
  activeFilterCount,
  keyFiltersToExportQuery,
  keyFiltersToParams,
  keyFiltersToQuery,
  parseKeyFilters,
  updateKeyFilters,
  type KeyFilters,
} from './filters';
import { describeExpiry, filenameOf, formatTime, type BulkAction, type KeyRecord, type Page } from './types';
import { CopyAction } from '../components/CopyAction';

function useKeyFilters(): [KeyFilters, (change: Partial<KeyFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => parseKeyFilters(params), [params]);
  // From the address as it is now, not as this render saw it: two quick changes (clear the search, pick a
  // status) must not let the second undo the first while the router is still applying it.
  // (react-router hands a functional update this render's params too, so the address bar is read directly.)
  const update = (change: Partial<KeyFilters>) =>
    setParams(keyFiltersToParams(updateKeyFilters(parseKeyFilters(new URLSearchParams(window.location.search)), change)), {
      replace: true,
    });
  return [filters, update];
}

function useBulk(serviceId: string, onDone?: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { action: BulkAction; keys: string[]; days?: number; note?: string }) =>
      unwrap(await api.POST('/api/v1/keys/api/keys/bulk', { headers: serviceHeaders(serviceId), body: input })),
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      const extra = [
        result.notFound.length ? `${result.notFound.length} not found` : '',
        result.skipped.length ? `${result.skipped.length} skipped (lifetime)` : '',
      ].filter(Boolean);
      notifySuccess(`${result.updated} key${result.updated === 1 ? '' : 's'} updated${extra.length ? ` — ${extra.join(', ')}` : ''}`);
      onDone?.();
    },
    onError: notifyError,
  });
}

// ---------------------------------------------------------------------------------------------
// Generate

function GenerateDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [expirationType, setExpirationType] = useState<'byDays' | 'byDate' | 'lifetime'>('byDays');
  const [days, setDays] = useState<number | string>(30);
  const [date, setDate] = useState('');
  const [count, setCount] = useState<number | string>(1);
  const [note, setNote] = useState('');
  const [isPremium, setPremium] = useState(false);
  const [noHwidValidation, setNoHwid] = useState(false);
  const [maxHwids, setMaxHwids] = useState<number | string>(1);
  const [chatId, setChatId] = useState('');
  const [created, setCreated] = useState<string[] | null>(null);
  const generate = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/keys/api/generate', {
          headers: serviceHeaders(serviceId),
          body: {
            expirationType,
            count: Number(count),
            ...(expirationType === 'byDays' ? { days: Number(days) } : {}),
            ...(expirationType === 'byDate' ? { expiresAt: date ? new Date(date).toISOString() : '' } : {}),
            ...(note.trim() ? { note: note.trim() } : {}),
            isPremium,
            noHwidValidation,
            maxHwids: Number(maxHwids),
            ...(chatId.trim() ? { chatId: chatId.trim() } : {}),
          },
        }),
      ),
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      setCreated(data.keys.map((k) => k.key));
      notifySuccess(`${data.keys.length} key${data.keys.length === 1 ? '' : 's'} generated`);
    },
  });
  const close = () => {
    setCreated(null);
    generate.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    generate.mutate();
  };
  return (
    <Modal opened={opened} onClose={close} title="Generate keys" centered size="lg">
      {created ? (
        <Stack>
          <Text size="sm">New keys (they are also in the table):</Text>
          <Textarea aria-label="New keys" readOnly autosize maxRows={12} value={created.join('\n')} ff="monospace" />
          <Group justify="flex-end">
            <CopyAction
              value={created.join('\n')}
              label={created.length === 1 ? 'Copy key' : 'Copy keys'}
              variant="filled"
              copiedMessage={created.length === 1 ? 'Key copied' : `${created.length} keys copied`}
            />
            <Button variant="default" onClick={close}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <NativeSelect
              label="Expiration"
              value={expirationType}
              onChange={(e) => setExpirationType(e.currentTarget.value as typeof expirationType)}
              data={[
                { value: 'byDays', label: 'Days' },
                { value: 'byDate', label: 'Date' },
                { value: 'lifetime', label: 'Lifetime' },
              ]}
            />
            {expirationType === 'byDays' && (
              <NumberInput label="Days" min={1} max={3650} value={days} onChange={setDays} required allowDecimal={false} />
            )}
            {expirationType === 'byDate' && (
              <TextInput label="Expires at" type="datetime-local" value={date} onChange={(e) => setDate(e.currentTarget.value)} required />
            )}
            <NumberInput label="Count" min={1} max={1000} value={count} onChange={setCount} required allowDecimal={false} />
            <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
            <NumberInput label="Max HWIDs" min={1} max={100} value={maxHwids} onChange={setMaxHwids} allowDecimal={false} />
            <TextInput
              label="Chat user id"
              description="17–20 digits, optional"
              value={chatId}
              onChange={(e) => setChatId(e.currentTarget.value)}
            />
            <Checkbox label="Premium" checked={isPremium} onChange={(e) => setPremium(e.currentTarget.checked)} />
            <Checkbox label="No HWID validation" checked={noHwidValidation} onChange={(e) => setNoHwid(e.currentTarget.checked)} />
            {generate.error && (
              <Text c="red" size="sm" role="alert">
                {messageOf(generate.error)}
              </Text>
            )}
            <Group justify="flex-end">
              <Button type="submit" loading={generate.isPending}>
                Generate
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

// ---------------------------------------------------------------------------------------------
// Import, export, compensate

function ImportDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [format, setFormat] = useState<'luarmor' | 'keyward-csv' | 'keyward-json'>('luarmor');
  const [file, setFile] = useState<File | null>(null);
  const [skip, setSkip] = useState(false);
  const importKeys = useMutation({
    mutationFn: async () => {
      if (!file) throw new Error('Choose a file');
      const text = await file.text();
      let data: string | unknown[] = text;
      if (format !== 'keyward-csv') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new Error('The file is not valid JSON');
        }
        if (!Array.isArray(parsed)) throw new Error('The file must hold a JSON array of records');
        data = parsed;
      }
      return unwrap(
        await api.POST('/api/v1/keys/api/keys/import', {
          headers: serviceHeaders(serviceId),
          body: { format, data, ...(skip ? { onDuplicate: 'skip' as const } : {}) },
        }),
      );
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      notifySuccess(
        `Imported ${result.imported.active} active and ${result.imported.generated} generated keys${result.skipped ? `, ${result.skipped} skipped` : ''}`,
      );
      setFile(null);
      onClose();
    },
  });
  const error = importKeys.error;
  const body = error instanceof ApiError ? error.body : null;
  return (
    <Modal opened={opened} onClose={onClose} title="Import keys" centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          importKeys.mutate();
        }}
      >
        <Stack>
          <NativeSelect
            label="Format"
            value={format}
            onChange={(e) => setFormat(e.currentTarget.value as typeof format)}
            data={[
              { value: 'luarmor', label: 'Luarmor users (JSON)' },
              { value: 'keyward-csv', label: 'Keyward export (CSV)' },
              { value: 'keyward-json', label: 'Keyward export (JSON)' },
            ]}
          />
          <FileInput
            label="File"
            placeholder="Choose a file"
            value={file}
            onChange={setFile}
            accept=".json,.csv,application/json,text/csv"
            required
            clearable
          />
          <Checkbox label="Skip keys that already exist" checked={skip} onChange={(e) => setSkip(e.currentTarget.checked)} />
          {error && (
            <Paper withBorder p="sm" role="alert">
              <Text c="red" size="sm">
                {messageOf(error)}
              </Text>
              {body?.errors && (
                <ScrollArea.Autosize mah={200}>
                  <Table fz="xs" aria-label="Import errors">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Record</Table.Th>
                        <Table.Th>Field</Table.Th>
                        <Table.Th>Problem</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {body.errors.map((row) => (
                        <Table.Tr key={`${row.index}-${row.field}`}>
                          <Table.Td>{row.index + 1}</Table.Td>
                          <Table.Td>{row.field}</Table.Td>
                          <Table.Td>{row.error}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </ScrollArea.Autosize>
              )}
              {body?.duplicates && (
                <Text size="xs" mt="xs">
                  Already on the server: {body.duplicates.slice(0, 20).join(', ')}
                  {body.duplicates.length > 20 ? ` and ${body.duplicates.length - 20} more` : ''}. Tick “Skip keys that already exist” to
                  import the rest.
                </Text>
              )}
            </Paper>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={importKeys.isPending}>
              Import
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

async function downloadExport(serviceId: string, filters: KeyFilters, format: 'csv' | 'json') {
  const {
    data: blob,
    error,
    response,
  } = await api.GET('/api/v1/keys/api/keys/export', {
    headers: serviceHeaders(serviceId),
    params: { query: keyFiltersToExportQuery(filters, format) },
    parseAs: 'blob',
  });
  if (!response.ok || !blob) {
    const body = (error ?? {}) as { error?: string; code?: string };
    throw new ApiError(response.status, {
      success: false,
      error: body.error ?? `Export failed (${response.status})`,
      code: body.code ?? 'UNKNOWN',
    });
  }
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filenameOf(response.headers.get('content-disposition'), `keys.${format}`);
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the blob once click() returns; revoking later keeps slow browsers safe.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function DaysDialog({
  opened,
  title,
  max,
  submitLabel,
  onSubmit,
  onClose,
  busy,
  children,
}: {
  opened: boolean;
  title: string;
  max: number;
  submitLabel: string;
  onSubmit: (days: number) => void;
  onClose: () => void;
  busy: boolean;
  children?: React.ReactNode;
}) {
  const [days, setDays] = useState<number | string>(7);
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit(Number(days));
        }}
      >
        <Stack>
          {children}
          <NumberInput label="Days" min={1} max={max} value={days} onChange={setDays} required allowDecimal={false} data-autofocus />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

// ---------------------------------------------------------------------------------------------
// Detail drawer with the edit form

function KeyDrawer({ record, onClose, serviceId }: { record: KeyRecord | null; onClose: () => void; serviceId: string }) {
  return (
    <Drawer opened={record !== null} onClose={onClose} title={record ? `Key ${record.key}` : ''} position="right" size="md">
      {record && <KeyEditor key={record.key} record={record} serviceId={serviceId} onSaved={onClose} />}
    </Drawer>
  );
}

const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function KeyEditor({ record, serviceId, onSaved }: { record: KeyRecord; serviceId: string; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState(record.note ?? '');
  const [status, setStatus] = useState(record.status);
  const [isPremium, setPremium] = useState(record.isPremium);
  const [noHwidValidation, setNoHwid] = useState(record.noHwidValidation);
  const [maxHwids, setMaxHwids] = useState<number | string>(record.maxHwids ?? 1);
  const [lifetime, setLifetime] = useState(record.expiresAt === null);
  const [expiresAt, setExpiresAt] = useState(toLocalInput(record.expiresAt));
  const [chatId, setChatId] = useState(record.chatId ?? '');
  const [hwid, setHwid] = useState(record.hwid ?? '');
  const active = record.type === 'active';
  const save = useMutation({
    mutationFn: async () => {
      const shared = {
        key: record.key,
        note,
        status,
        isPremium,
        noHwidValidation,
        maxHwids: Number(maxHwids),
        chatId: chatId.trim() || null,
      };
      const headers = serviceHeaders(serviceId);
      const newExpiry = !lifetime && expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {};
      if (active) {
        const body = {
          ...shared,
          ...(lifetime ? { expiresAt: null } : newExpiry),
          ...(hwid.trim() !== (record.hwid ?? '') ? { hwid: hwid.trim() || null } : {}),
        };
        return unwrap(await api.PUT('/api/v1/keys/api/key', { headers, body }));
      }
      // A lifetime generated key stays lifetime (the API refuses null there); otherwise send what the form says.
      return unwrap(await api.PUT('/api/v1/keys/api/generated-key', { headers, body: { ...shared, ...newExpiry } }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      notifySuccess('Key saved');
      onSaved();
    },
  });
  return (
    <Stack>
      <Group gap="xs">
        <Badge variant="light">{record.type}</Badge>
        <CopyAction value={record.key} label="Copy key" size="xs" copiedMessage="Key copied" />
      </Group>
      <Table fz="sm" variant="vertical" aria-label="Key details">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>Created</Table.Th>
            <Table.Td>{formatTime(record.createdAt)}</Table.Td>
          </Table.Tr>
          {active && (
            <Table.Tr>
              <Table.Th>Activated</Table.Th>
              <Table.Td>{formatTime(record.activatedAt)}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>Last used</Table.Th>
              <Table.Td>{formatTime(record.lastUsedAt)}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>Executions</Table.Th>
              <Table.Td>{record.executions ?? 0}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>HWIDs</Table.Th>
              <Table.Td>{record.hwids?.length ? record.hwids.join(', ') : 'none'}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>HWID resets</Table.Th>
              <Table.Td>
                {record.hwidResetCount ?? 0} (last {formatTime(record.hwidResetAt)})
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
          <NativeSelect
            label="Status"
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as KeyRecord['status'])}
            data={['active', 'paused', 'banned']}
          />
          {active && (
            <TextInput label="HWID" description="Empty unbinds every HWID" value={hwid} onChange={(e) => setHwid(e.currentTarget.value)} />
          )}
          <NumberInput label="Max HWIDs" min={1} max={100} value={maxHwids} onChange={setMaxHwids} allowDecimal={false} />
          <Switch
            label="Lifetime"
            checked={lifetime}
            onChange={(e) => setLifetime(e.currentTarget.checked)}
            disabled={!active && record.expiresAt !== null}
          />
          {!lifetime && (
            <TextInput
              label="Expires at"
              type="datetime-local"
              value={expiresAt}
              onChange={(e) => setExpiresAt(e.currentTarget.value)}
              required
            />
          )}
          <TextInput label="Chat user id" value={chatId} onChange={(e) => setChatId(e.currentTarget.value)} />
          <Checkbox label="Premium" checked={isPremium} onChange={(e) => setPremium(e.currentTarget.checked)} />
          <Checkbox label="No HWID validation" checked={noHwidValidation} onChange={(e) => setNoHwid(e.currentTarget.checked)} />
          {save.error && (
            <Text c="red" size="sm" role="alert">
              {messageOf(save.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

// ---------------------------------------------------------------------------------------------
// The page

type Pending = { action: 'delete' | 'ban' | 'resetHwid' | 'extend' | 'pause' | 'activate' | 'setNote'; keys: string[] } | null;

const ACTION_TEXT: Record<Exclude<NonNullable<Pending>['action'], 'extend' | 'setNote'>, { title: string; verb: string }> = {
  delete: { title: 'Delete', verb: 'permanently delete' },
  ban: { title: 'Ban', verb: 'ban' },
  resetHwid: { title: 'Reset HWID', verb: 'clear every HWID of' },
  pause: { title: 'Pause', verb: 'pause' },
  activate: { title: 'Activate', verb: 'activate' },
};

const describeKeys = (keys: string[]) => (keys.length === 1 ? `key ${keys[0]}` : `${keys.length} keys`);

function FilterSelect({
  label,
  value,
  onChange,
  data,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  data: Array<{ value: string; label: string }>;
}) {
  return <NativeSelect size="xs" label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)} data={data} />;
}

const ANY = { value: '', label: 'Any' };
const YES_NO = [ANY, { value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }];

export default function KeysPage() {
  const serviceId = useServiceId();
  const [filters, setFilters] = useKeyFilters();
  const [searchText, setSearchText] = useState(filters.search);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [generating, setGenerating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [compensating, setCompensating] = useState(false);
  const [pending, setPending] = useState<Pending>(null);
  const [note, setNote] = useState('');
  const [detail, setDetail] = useState<KeyRecord | null>(null);
  const [exporting, setExporting] = useState(false);
  const queryClient = useQueryClient();

  const list = useQuery<Page<KeyRecord>>({
    queryKey: ['keys', serviceId, keyFiltersToQuery(filters)],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/keys/api/keys', { headers: serviceHeaders(serviceId), params: { query: keyFiltersToQuery(filters) } })),
    placeholderData: keepPreviousData,
  });
  const bulk = useBulk(serviceId, () => {
    setPending(null);
    setSelected(new Set());
  });
  const compensate = useMutation({
    mutationFn: async (days: number) =>
      unwrap(await api.POST('/api/v1/keys/api/compensate', { headers: serviceHeaders(serviceId), body: { days } })),
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      notifySuccess(`Compensated ${r.activeKeysUpdated} active and ${r.generatedKeysUpdated} generated keys`);
      setCompensating(false);
    },
    onError: notifyError,
  });

  const items = list.data?.items ?? [];
  const pageKeys = items.map((k) => k.key);
  const allSelected = pageKeys.length > 0 && pageKeys.every((k) => selected.has(k));
  const toggle = (key: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const toggleAll = () => setSelected(allSelected ? new Set() : new Set(pageKeys));
  const selection = [...selected];

  const runExport = async (format: 'csv' | 'json') => {
    setExporting(true);
    try {
      await downloadExport(serviceId, filters, format);
    } catch (error) {
      notifyError(error);
    } finally {
      setExporting(false);
    }
  };

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    setFilters({ search: searchText });
  };

  const confirmText = pending && pending.action !== 'extend' && pending.action !== 'setNote' ? ACTION_TEXT[pending.action] : null;

  return (
    <>
      <PageHeader title="Keys">
        <Button onClick={() => setGenerating(true)}>Generate keys</Button>
        <Menu position="bottom-end">
          <Menu.Target>
            <Button variant="default" loading={exporting}>
              Export
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => void runExport('csv')}>CSV</Menu.Item>
            <Menu.Item onClick={() => void runExport('json')}>JSON</Menu.Item>
          </Menu.Dropdown>
        </Menu>
        <Button variant="default" onClick={() => setImporting(true)}>
          Import
        </Button>
        <Button variant="default" onClick={() => setCompensating(true)}>
          Compensate
        </Button>
      </PageHeader>

      <Stack gap="sm">
        <form onSubmit={submitSearch} role="search">
          <Group align="flex-end" gap="xs" wrap="wrap">
            <TextInput
              type="search"
              aria-label="Search"
              placeholder="Search key, note, HWID or chat id"
              value={searchText}
              onChange={(e) => setSearchText(e.currentTarget.value)}
              style={{ flex: '1 1 220px' }}
            />
            <Button type="submit" variant="light">
              Search
            </Button>
          </Group>
        </form>
        <Group gap="xs" wrap="wrap" align="flex-end" aria-label={`Filters (${activeFilterCount(filters)} set)`} role="group">
          <FilterSelect
            label="Type"
            value={filters.type}
            onChange={(v) => setFilters({ type: v as KeyFilters['type'] })}
            data={[
              { value: 'all', label: 'All' },
              { value: 'active', label: 'Active' },
              { value: 'generated', label: 'Generated' },
            ]}
          />
          <FilterSelect
            label="Status"
            value={filters.status}
            onChange={(v) => setFilters({ status: v as KeyFilters['status'] })}
            data={[ANY, { value: 'active', label: 'Active' }, { value: 'paused', label: 'Paused' }, { value: 'banned', label: 'Banned' }]}
          />
          <FilterSelect
            label="Premium"
            value={filters.premium}
            onChange={(v) => setFilters({ premium: v as KeyFilters['premium'] })}
            data={YES_NO}
          />
          <FilterSelect
            label="Bound"
            value={filters.bound}
            onChange={(v) => setFilters({ bound: v as KeyFilters['bound'] })}
            data={YES_NO}
          />
          <FilterSelect
            label="Expired"
            value={filters.expired}
            onChange={(v) => setFilters({ expired: v as KeyFilters['expired'] })}
            data={YES_NO}
          />
          <FilterSelect
            label="Sort by"
            value={filters.sort}
            onChange={(v) => setFilters({ sort: v as KeyFilters['sort'] })}
            data={[
              { value: 'createdAt', label: 'Created' },
              { value: 'expiresAt', label: 'Expiry' },
              { value: 'lastUsedAt', label: 'Last used' },
              { value: 'executions', label: 'Executions' },
            ]}
          />
          <FilterSelect
            label="Order"
            value={filters.order}
            onChange={(v) => setFilters({ order: v as KeyFilters['order'] })}
            data={[
              { value: 'desc', label: 'Newest / highest first' },
              { value: 'asc', label: 'Oldest / lowest first' },
            ]}
          />
          <FilterSelect
            label="Per page"
            value={String(filters.limit)}
            onChange={(v) => setFilters({ limit: Number(v) })}
            data={PAGE_SIZES.map((n) => ({ value: String(n), label: String(n) }))}
          />
        </Group>

        {selection.length > 0 && (
          <Paper withBorder p="xs" role="region" aria-label="Selection actions">
            <Group gap="xs" wrap="wrap">
              <Text size="sm" fw={600}>
                {selection.length} selected
              </Text>
              <Button size="xs" variant="light" onClick={() => setPending({ action: 'resetHwid', keys: selection })}>
                Reset HWID
              </Button>
              <Button size="xs" variant="light" onClick={() => setPending({ action: 'extend', keys: selection })}>
                Extend
              </Button>
              <Button size="xs" variant="light" onClick={() => setPending({ action: 'pause', keys: selection })}>
                Pause
              </Button>
              <Button size="xs" variant="light" onClick={() => setPending({ action: 'activate', keys: selection })}>
                Activate
              </Button>
              <Button
                size="xs"
                variant="light"
                onClick={() => {
                  setNote('');
                  setPending({ action: 'setNote', keys: selection });
                }}
              >
                Set note
              </Button>
              <Button size="xs" variant="light" color="orange" onClick={() => setPending({ action: 'ban', keys: selection })}>
                Ban
              </Button>
              <Button size="xs" variant="light" color="red" onClick={() => setPending({ action: 'delete', keys: selection })}>
                Delete
              </Button>
              <Button size="xs" variant="subtle" onClick={() => setSelected(new Set())}>
                Clear selection
              </Button>
            </Group>
          </Paper>
        )}

        {list.isPending ? (
          <Loading label="Loading keys" />
        ) : list.isError ? (
          <ErrorState error={list.error} retry={() => void list.refetch()} />
        ) : items.length === 0 ? (
          <Empty title={filters.search || activeFilterCount(filters) ? 'No key matches' : 'No keys yet'}>
            {filters.search || activeFilterCount(filters)
              ? 'Change the search or the filters.'
              : 'Generate keys or import them from a file.'}
          </Empty>
        ) : (
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
                      <Checkbox
                        aria-label={`Select ${record.key}`}
                        checked={selected.has(record.key)}
                        onChange={() => toggle(record.key)}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Text
                          component="button"
                          type="button"
                          ff="monospace"
                          size="sm"
                          onClick={() => setDetail(record)}
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
                    <Table.Td>{record.hwids?.length ? `${record.hwids.length}/${record.maxHwids}` : `0/${record.maxHwids ?? 1}`}</Table.Td>
                    <Table.Td maw={180} style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                      {record.note}
                    </Table.Td>
                    <Table.Td title={record.expiresAt ?? 'Lifetime'}>{describeExpiry(record.expiresAt)}</Table.Td>
                    <Table.Td>{record.lastUsedAt ? new Date(record.lastUsedAt).toLocaleDateString() : '—'}</Table.Td>
                    <Table.Td>{record.executions ?? 0}</Table.Td>
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
        )}

        {list.data && list.data.total > 0 && (
          <Group justify="space-between" wrap="wrap">
            <Text size="sm" c="dimmed">
              {list.data.total.toLocaleString()} key{list.data.total === 1 ? '' : 's'}
            </Text>
            <Pagination
              total={list.data.totalPages}
              value={filters.page}
              onChange={(page) => setFilters({ page })}
              size="sm"
              aria-label="Pages"
            />
          </Group>
        )}
      </Stack>

      <GenerateDialog opened={generating} onClose={() => setGenerating(false)} serviceId={serviceId} />
      <ImportDialog opened={importing} onClose={() => setImporting(false)} serviceId={serviceId} />
      <DaysDialog
        opened={compensating}
        title="Compensate every key"
        max={365}
        submitLabel="Compensate"
        onSubmit={(d) => compensate.mutate(d)}
        onClose={() => setCompensating(false)}
        busy={compensate.isPending}
      >
        <Text size="sm">Adds the days to every key of this service that expires (lifetime keys are left alone) — for downtime.</Text>
      </DaysDialog>
      <DaysDialog
        opened={pending?.action === 'extend'}
        title={pending ? `Extend ${describeKeys(pending.keys)}` : 'Extend'}
        max={3650}
        submitLabel="Extend"
        onSubmit={(days) => pending && bulk.mutate({ action: 'extend', keys: pending.keys, days })}
        onClose={() => setPending(null)}
        busy={bulk.isPending}
      />
      <Modal opened={pending?.action === 'setNote'} onClose={() => setPending(null)} title="Set note" centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (pending) bulk.mutate({ action: 'setNote', keys: pending.keys, note });
          }}
        >
          <Stack>
            <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} data-autofocus />
            <Group justify="flex-end">
              <Button type="submit" loading={bulk.isPending}>
                Save
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <ConfirmDialog
        opened={confirmText !== null}
        title={confirmText?.title ?? ''}
        onClose={() => setPending(null)}
        busy={bulk.isPending}
        onConfirm={() => pending && bulk.mutate({ action: pending.action, keys: pending.keys })}
      >
        {pending && confirmText ? `This will ${confirmText.verb} ${describeKeys(pending.keys)}.` : ''}
      </ConfirmDialog>
      <KeyDrawer record={detail} onClose={() => setDetail(null)} serviceId={serviceId} />
    </>
  );
}
