import { useState } from 'react';
import { Button, Code, Group, Modal, Pagination, ScrollArea, Stack, Table, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, unwrap } from '../api/client';
import { CodeOrFileInput, codeToSend, fileTooLarge as isTooLarge, formatSize } from '../components/CodeOrFileInput';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyAction } from '../components/CopyAction';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading } from '../components/states';
import { withVault } from './vault';
import type { ApiData, ItemOf } from '../api/types';

type VaultScript = ItemOf<ApiData<'/api/v3/vault/scripts'>['items']>;

/** The server's rules (src/modules/vault/vault.service.ts): VSS names, not shaped like a UUID; code up to 40 MB. */
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const nameProblem = (name: string) =>
  !name ? null : !NAME.test(name) || UUID.test(name) ? '1 to 64 letters, digits, _ . - (not shaped like a UUID)' : null;
const tooLarge = (bytes: number) => `The code is ${formatSize(bytes)}: vault scripts may be at most 40 MB (41,943,040 bytes).`;

const VAULT_KEY = (accountId: string) => ['vault', accountId] as const;

/** Create (script null) or edit a vault script: name, and code typed or from a file. */
function EditorDialog({
  accountId,
  script,
  opened,
  onClose,
}: {
  accountId: string;
  script: VaultScript | null;
  opened: boolean;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(script?.name ?? '');
  const [code, setCode] = useState<string | null>(script ? null : '');
  const [file, setFile] = useState<File | null>(null);
  // Editing loads the stored code first; the textarea shows it once it has arrived.
  const current = useQuery({
    queryKey: [...VAULT_KEY(accountId), 'code', script?.id],
    enabled: script !== null,
    queryFn: async () =>
      withVault(accountId, async (headers) =>
        unwrap(await api.GET('/api/v3/vault/scripts/{idOrName}', { headers, params: { path: { idOrName: script!.id } } })),
      ),
    staleTime: 0,
  });
  const shownCode = code ?? current.data?.code ?? '';
  const fileTooLarge = isTooLarge(file);
  const save = useMutation({
    mutationFn: async () => {
      const source = await codeToSend(file, shownCode, tooLarge);
      if (!source) throw new Error('The code is empty');
      return withVault(accountId, async (headers) => {
        if (!script) return unwrap(await api.POST('/api/v3/vault/scripts', { headers, body: { name: name.trim(), code: source } }));
        const body: { name?: string; code?: string } = {};
        if (name.trim() !== script.name) body.name = name.trim();
        if (file || code !== null) body.code = source;
        if (!body.name && body.code === undefined) return script;
        return unwrap(await api.PUT('/api/v3/vault/scripts/{idOrName}', { headers, params: { path: { idOrName: script.id } }, body }));
      });
    },
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: VAULT_KEY(accountId) });
      notifySuccess(script ? `Vault script “${saved.name}” saved` : `Vault script “${saved.name}” stored`);
      onClose();
    },
  });
  const badName = nameProblem(name.trim());
  return (
    <Modal opened={opened} onClose={onClose} title={script ? `Edit ${script.name}` : 'New vault script'} centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!badName && !fileTooLarge) save.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Name"
            description="1–64 of A-Z a-z 0-9 _ . -, unique in your vault"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={badName}
            required
            data-autofocus
          />
          <CodeOrFileInput
            code={shownCode}
            onCodeChange={setCode}
            file={file}
            onFileChange={(f) => {
              setFile(f);
              save.reset();
            }}
            tooLarge={tooLarge}
            description="Up to 40 MB; replaces the code above"
            placeholder="Choose a file"
            minRows={6}
            maxRows={16}
            codeArea={
              script && current.isPending ? (
                <Loading label="Loading the code" />
              ) : script && current.isError ? (
                <ErrorState error={current.error} retry={() => void current.refetch()} />
              ) : undefined
            }
          />
          {save.error && !fileTooLarge && (
            <Text c="red" size="sm" role="alert">
              {messageOf(save.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button
              type="submit"
              loading={save.isPending}
              disabled={!name.trim() || !!badName || fileTooLarge || (script !== null && current.isPending)}
            >
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Read-only view of one script's code, with a copy button. */
function ViewDialog({ accountId, script, onClose }: { accountId: string; script: VaultScript; onClose: () => void }) {
  const full = useQuery({
    queryKey: [...VAULT_KEY(accountId), 'code', script.id],
    queryFn: async () =>
      withVault(accountId, async (headers) =>
        unwrap(await api.GET('/api/v3/vault/scripts/{idOrName}', { headers, params: { path: { idOrName: script.id } } })),
      ),
    staleTime: 0,
  });
  return (
    <Modal opened onClose={onClose} title={script.name} centered size="xl">
      {full.isPending ? (
        <Loading label="Loading the code" />
      ) : full.isError ? (
        <ErrorState error={full.error} retry={() => void full.refetch()} />
      ) : (
        <Stack>
          <Text size="xs" c="dimmed">
            {formatSize(full.data.size)}, updated {new Date(full.data.updatedAt).toLocaleString()} · id <Code>{full.data.id}</Code>
          </Text>
          <ScrollArea.Autosize mah={420} type="auto">
            <Code block aria-label={`Code of ${script.name}`}>
              {full.data.code}
            </Code>
          </ScrollArea.Autosize>
          <CopyAction value={full.data.code} label="Copy code" size="xs" w="fit-content" copiedMessage="Code copied" />
        </Stack>
      )}
    </Modal>
  );
}

/**
 * The account's vault: paged list, store, view, edit and delete. Opening it reveals the account key
 * to buy a vault token, so it only happens when asked.
 */
export function VaultSection({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<VaultScript | null>(null);
  const [viewing, setViewing] = useState<VaultScript | null>(null);
  const [deleting, setDeleting] = useState<VaultScript | null>(null);
  const list = useQuery({
    queryKey: [...VAULT_KEY(accountId), 'list', page, search.trim()],
    enabled: open,
    queryFn: async () =>
      withVault(accountId, async (headers) =>
        unwrap(
          await api.GET('/api/v3/vault/scripts', {
            headers,
            params: { query: { page: String(page), limit: '20', ...(search.trim() ? { search: search.trim() } : {}) } },
          }),
        ),
      ),
    placeholderData: keepPreviousData,
  });
  const remove = useMutation({
    mutationFn: async (script: VaultScript) =>
      withVault(accountId, async (headers) =>
        unwrap(await api.DELETE('/api/v3/vault/scripts/{idOrName}', { headers, params: { path: { idOrName: script.id } } })),
      ),
    onSuccess: (_d, script) => {
      void queryClient.invalidateQueries({ queryKey: VAULT_KEY(accountId) });
      notifySuccess(`Vault script “${script.name}” deleted`);
      setDeleting(null);
    },
    onError: notifyError,
  });
  const items = list.data?.items ?? [];
  return (
    <Section title="Vault scripts">
      {!open ? (
        <Stack gap="xs" align="flex-start">
          <Text size="sm">Your own script store, apart from any service. Opening it uses your account key.</Text>
          <Button variant="light" onClick={() => setOpen(true)}>
            Show vault scripts
          </Button>
        </Stack>
      ) : (
        <Stack>
          <Group justify="space-between" wrap="wrap" gap="xs">
            <TextInput
              type="search"
              aria-label="Search vault"
              placeholder="Search by name"
              value={search}
              onChange={(e) => {
                setSearch(e.currentTarget.value);
                setPage(1);
              }}
              maw={320}
            />
            <Button onClick={() => setCreating(true)}>New vault script</Button>
          </Group>
          {list.isPending ? (
            <Loading label="Opening the vault" />
          ) : list.isError ? (
            <ErrorState error={list.error} retry={() => void list.refetch()} />
          ) : items.length === 0 ? (
            <Empty title={search.trim() ? 'No vault script matches' : 'The vault is empty'}>
              {search.trim() ? 'Change the search.' : 'Store a script with “New vault script”.'}
            </Empty>
          ) : (
            <ScrollArea type="auto">
              <Table striped aria-label="Vault scripts" fz="sm" miw={560}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Size</Table.Th>
                    <Table.Th>Updated</Table.Th>
                    <Table.Th>Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((s) => (
                    <Table.Tr key={s.id}>
                      <Table.Td>{s.name}</Table.Td>
                      <Table.Td>{formatSize(s.size)}</Table.Td>
                      <Table.Td>{new Date(s.updatedAt).toLocaleString()}</Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Button size="compact-xs" variant="light" aria-label={`View ${s.name}`} onClick={() => setViewing(s)}>
                            View
                          </Button>
                          <Button size="compact-xs" variant="subtle" aria-label={`Edit ${s.name}`} onClick={() => setEditing(s)}>
                            Edit
                          </Button>
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            color="red"
                            aria-label={`Delete ${s.name}`}
                            onClick={() => setDeleting(s)}
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
          {list.data && list.data.totalPages > 1 && (
            <Pagination total={list.data.totalPages} value={page} onChange={setPage} size="sm" aria-label="Vault pages" />
          )}
        </Stack>
      )}
      {creating && <EditorDialog accountId={accountId} script={null} opened onClose={() => setCreating(false)} />}
      {editing && <EditorDialog key={editing.id} accountId={accountId} script={editing} opened onClose={() => setEditing(null)} />}
      {viewing && <ViewDialog accountId={accountId} script={viewing} onClose={() => setViewing(null)} />}
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete vault script"
        onClose={() => setDeleting(null)}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        {deleting ? `Delete “${deleting.name}” from your vault? Its code cannot be recovered.` : ''}
      </ConfirmDialog>
    </Section>
  );
}
