import { useState } from 'react';
import {
  Badge,
  Button,
  Group,
  Modal,
  NativeSelect,
  Pagination,
  Progress,
  ScrollArea,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap, uploadWithProgress } from '../api/client';
import { CodeOrFileInput, codeToSend, fileTooLarge, formatSize } from '../components/CodeOrFileInput';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyAction } from '../components/CopyAction';
import { buyerSnippet } from '../lib/snippet';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import type { Page } from '../api/types';
import { ScriptSwitch } from '../scripts/ScriptSwitch';
import { HeartbeatSwitch } from '../scripts/HeartbeatSwitch';
import { ExecutorRuleInput, executorRuleProblem, type ExecutorRule } from '../scripts/ExecutorRuleInput';
import { BASE, EditDialog, tooLargeMessage } from '../scripts/EditDialog';
import type { Script } from '../scripts/types';
import { OBFUSCATION, obfuscationLabel, scriptStatusLabel } from '../lib/labels';
import { VersionsDialog } from '../scripts/VersionsDialog';
import { LuaSnippets } from '../scripts/LuaSnippets';

function UploadDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [code, setCode] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [obfuscationType, setObfuscation] = useState('NONE');
  const [visible, setVisible] = useState(true);
  // Luarmor's script options (contract §16.3), in plain words.
  const [ffa, setFfa] = useState(false);
  const [silent, setSilent] = useState(false);
  const [heartbeat, setHeartbeat] = useState(false);
  const [executors, setExecutors] = useState<ExecutorRule>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const tooLarge = fileTooLarge(file);
  const upload = useMutation({
    mutationFn: async () => {
      const source = await codeToSend(file, code, tooLargeMessage);
      setProgress(0);
      return uploadWithProgress<Script>(
        'POST',
        BASE,
        { name: name.trim(), code: source, obfuscationType, visible, ffa, silent, heartbeat, executors },
        serviceId,
        setProgress,
      );
    },
    onSuccess: (script) => {
      void queryClient.invalidateQueries({ queryKey: ['scripts', serviceId] });
      notifySuccess(`Script “${script.name}” uploaded${script.status === 'processing' ? ' — obfuscating' : ''}`);
      setName('');
      setCode('');
      setFile(null);
      onClose();
    },
    onSettled: () => setProgress(null),
  });
  return (
    <Modal opened={opened} onClose={onClose} title="Upload script" centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          upload.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Name"
            description="1–64 of A-Z a-z 0-9 _ . -"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            required
            data-autofocus
          />
          <CodeOrFileInput
            code={code}
            onCodeChange={setCode}
            file={file}
            onFileChange={(f) => {
              setFile(f);
              upload.reset();
            }}
            tooLarge={tooLargeMessage}
            description="Up to 40 MB"
            placeholder="Choose a .lua file"
            accept=".lua,.txt,text/plain"
            minRows={4}
            maxRows={12}
          />
          <NativeSelect
            label="Obfuscation"
            value={obfuscationType}
            onChange={(e) => setObfuscation(e.currentTarget.value)}
            data={OBFUSCATION}
          />
          <Switch
            label="Visible"
            description="Listed to end users (chat /script, loadstrings by chat id)"
            checked={visible}
            onChange={(e) => setVisible(e.currentTarget.checked)}
          />
          <Switch
            label="Free for everyone"
            description="Anyone may run it without a key; a valid key only marks the run as premium"
            checked={ffa}
            onChange={(e) => setFfa(e.currentTarget.checked)}
          />
          <Switch
            label="Quiet loader"
            description="Kept from Luarmor: Keyward's loader never prints progress lines; a refused key still shows why"
            checked={silent}
            onChange={(e) => setSilent(e.currentTarget.checked)}
          />
          <HeartbeatSwitch checked={heartbeat} onChange={setHeartbeat} />
          <ExecutorRuleInput value={executors} onChange={setExecutors} />
          {progress !== null && <Progress value={Math.round(progress * 100)} aria-label="Upload progress" animated />}
          {upload.error && !tooLarge && (
            <Text c="red" size="sm" role="alert">
              {messageOf(upload.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={upload.isPending} disabled={(!file && !code) || tooLarge || !!executorRuleProblem(executors)}>
              Upload
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export default function ScriptsPage() {
  const serviceId = useServiceId();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [uploading, setUploading] = useState(false);
  const [editing, setEditing] = useState<Script | null>(null);
  const [deleting, setDeleting] = useState<Script | null>(null);
  const [versionsOf, setVersionsOf] = useState<Script | null>(null);
  const list = useQuery({
    queryKey: ['scripts', serviceId, page, search],
    queryFn: async (): Promise<Page<Script>> =>
      unwrap(
        await api.GET('/api/v1/vss/api/scripts', {
          headers: serviceHeaders(serviceId),
          params: { query: { page: String(page), limit: '20', ...(search.trim() ? { search: search.trim() } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
    // Obfuscation runs in the background: look again while a script is still processing.
    refetchInterval: (query) => (query.state.data?.items.some((s) => s.status === 'processing') ? 2000 : false),
  });
  const setVisible = useMutation({
    mutationFn: async ({ script, visible }: { script: Script; visible: boolean }) =>
      unwrap(
        await api.PUT('/api/v1/vss/api/scripts/{idOrSlug}', {
          headers: serviceHeaders(serviceId),
          params: { path: { idOrSlug: script.id } },
          body: { visible },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['scripts', serviceId] }),
    onError: notifyError,
  });
  const remove = useMutation({
    mutationFn: async (script: Script) =>
      unwrap(
        await api.DELETE('/api/v1/vss/api/scripts/{idOrSlug}', {
          headers: serviceHeaders(serviceId),
          params: { path: { idOrSlug: script.id } },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['scripts', serviceId] });
      notifySuccess('Script deleted');
      setDeleting(null);
    },
    onError: notifyError,
  });
  const items = list.data?.items ?? [];
  // Mantine's 'sm' breakpoint; read at once (not after a first render) so the table never flashes the other layout.
  const wide = useMediaQuery('(min-width: 48em)', true, { getInitialValueInEffect: false });
  /** A script's obfuscation and its state, in its column from 'sm' up and under the name on a phone. */
  const obfuscation = (script: Script, named = false) => (
    <>
      {/* Without its column header a bare "None" says nothing: on a phone it is named. */}
      {named ? `Obfuscation: ${obfuscationLabel(script.obfuscationType)}` : obfuscationLabel(script.obfuscationType)}{' '}
      <Badge size="sm" variant="light" color={script.status === 'ready' ? 'green' : script.status === 'failed' ? 'red' : 'yellow'}>
        {scriptStatusLabel(script.status)}
      </Badge>
      {script.status === 'failed' && (
        <Text size="xs" c="red" mt={4} aria-label={`Failure reason: ${script.name}`} maw={320}>
          Obfuscation failed: {script.failureReason ?? 'no reason given'}. Edit the script to try again or choose another obfuscation.
        </Text>
      )}
    </>
  );
  const visibleSwitch = (script: Script, label?: string) => (
    <Switch
      label={label}
      aria-label={`Visible: ${script.name}`}
      checked={script.visible}
      onChange={(e) => setVisible.mutate({ script, visible: e.currentTarget.checked })}
    />
  );
  /** A script's actions: in their column from 'sm' up, under the name on a phone so they are never off screen. */
  const actions = (script: Script, wrap: 'wrap' | 'nowrap') => (
    <Group gap={4} wrap={wrap}>
      {/* The name stays "Copy loadstring" (contract §9); "Copied" shows in a tooltip and a toast. */}
      <CopyAction
        value={buyerSnippet(script.loadstring)}
        label="Copy loadstring"
        size="compact-xs"
        copiedMessage={`Loadstring of “${script.name}” copied, with a script_key line: put the buyer's key in it`}
      />
      <Button size="compact-xs" variant="subtle" onClick={() => setEditing(script)}>
        Edit
      </Button>
      <Button size="compact-xs" variant="subtle" aria-label={`Versions: ${script.name}`} onClick={() => setVersionsOf(script)}>
        Versions
      </Button>
      <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(script)}>
        Delete
      </Button>
    </Group>
  );

  return (
    <>
      <PageHeader title="Scripts">
        <Button onClick={() => setUploading(true)}>Upload script</Button>
      </PageHeader>
      <Stack>
        <TextInput
          type="search"
          aria-label="Search scripts"
          placeholder="Search by name"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          maw={360}
        />
        {list.isPending ? (
          <Loading label="Loading scripts" />
        ) : list.isError ? (
          <ErrorState error={list.error} retry={() => void list.refetch()} />
        ) : items.length === 0 ? (
          <Empty title={search ? 'No script matches' : 'No scripts yet'}>
            {search ? 'Change the search.' : 'Upload a Lua script; end users load it with its loadstring.'}
          </Empty>
        ) : (
          <ScrollArea type="auto">
            {/* On a phone (contract §27): one column, no id, size or date; obfuscation, the switches (labelled, as their
                headers are gone) and the actions under the name, so nothing needs a sideways scroll. One layout is
                rendered, not both hidden by CSS: a script's switch and its message are then on the page once. */}
            <Table striped aria-label="Scripts" miw={wide ? 760 : 0}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{wide ? 'Name' : 'Script'}</Table.Th>
                  {wide && (
                    <>
                      <Table.Th>Obfuscation</Table.Th>
                      <Table.Th>Size</Table.Th>
                      <Table.Th>Updated</Table.Th>
                      <Table.Th>Visible</Table.Th>
                      <Table.Th>Enabled</Table.Th>
                      <Table.Th>Actions</Table.Th>
                    </>
                  )}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((script) => (
                  <Table.Tr key={script.id}>
                    <Table.Td>
                      {/* A name is up to 64 characters with no space to wrap at. */}
                      <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                        {script.name}
                      </Text>
                      {wide ? (
                        <Text size="xs" c="dimmed" ff="monospace">
                          {script.id}
                        </Text>
                      ) : (
                        <Stack gap={6} mt={4}>
                          <Text size="sm" component="div">
                            {obfuscation(script, true)}
                          </Text>
                          <Group gap="md">
                            {visibleSwitch(script, 'Visible')}
                            <ScriptSwitch script={script} serviceId={serviceId} label="Enabled" />
                          </Group>
                          {actions(script, 'wrap')}
                        </Stack>
                      )}
                    </Table.Td>
                    {wide && (
                      <>
                        <Table.Td>{obfuscation(script)}</Table.Td>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatSize(script.size)}</Table.Td>
                        <Table.Td>{new Date(script.updatedAt).toLocaleString()}</Table.Td>
                        <Table.Td>{visibleSwitch(script)}</Table.Td>
                        <Table.Td>
                          <ScriptSwitch script={script} serviceId={serviceId} />
                        </Table.Td>
                        <Table.Td>{actions(script, 'nowrap')}</Table.Td>
                      </>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        )}
        {list.data && list.data.totalPages > 1 && <Pagination total={list.data.totalPages} value={page} onChange={setPage} size="sm" />}
        <LuaSnippets serviceId={serviceId} example={items[0]} />
      </Stack>
      <UploadDialog opened={uploading} onClose={() => setUploading(false)} serviceId={serviceId} />
      <VersionsDialog script={versionsOf} serviceId={serviceId} onClose={() => setVersionsOf(null)} />
      {editing && <EditDialog script={editing} onClose={() => setEditing(null)} serviceId={serviceId} />}
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete script"
        onClose={() => setDeleting(null)}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        {deleting ? `Delete “${deleting.name}”? Its loadstring stops working at once.` : ''}
      </ConfirmDialog>
    </>
  );
}
