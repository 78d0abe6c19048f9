import { useState } from 'react';
import { Badge, Button, Checkbox, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError, messageOf, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import type { ApiData } from '../api/types';

type KeylessEntry = ApiData<'/api/v1/keys/api/keyless'>;

const PATH = '/api/v1/keys/api/keyless' as const;

// The API looks entries up one HWID at a time (contract §4 has no keyless listing), so the page is a lookup plus an add form.
export default function KeylessPage() {
  const serviceId = useServiceId();
  const [lookup, setLookup] = useState('');
  const [found, setFound] = useState<KeylessEntry | 'none' | null>(null);
  const [hwid, setHwid] = useState('');
  const [isPremium, setPremium] = useState(false);
  const [expiresAt, setExpiresAt] = useState('');
  const [deleting, setDeleting] = useState<KeylessEntry | null>(null);
  const find = useMutation({
    mutationFn: async (value: string) => {
      try {
        return unwrap(await api.GET(PATH, { headers: serviceHeaders(serviceId), params: { query: { hwid: value } } }));
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return 'none' as const;
        throw error;
      }
    },
    onSuccess: setFound,
    onError: notifyError,
  });
  const add = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST(PATH, {
          headers: serviceHeaders(serviceId),
          body: { hwid: hwid.trim(), isPremium, ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}) },
        }),
      ),
    onSuccess: (entry) => {
      notifySuccess(`HWID ${entry.hwid} may now run without a key`);
      setFound(entry);
      setLookup(entry.hwid);
      setHwid('');
      setExpiresAt('');
    },
  });
  const remove = useMutation({
    mutationFn: async (entry: KeylessEntry) =>
      unwrap(await api.DELETE(PATH, { headers: serviceHeaders(serviceId), params: { query: { hwid: entry.hwid } } })),
    onSuccess: () => {
      notifySuccess('Keyless entry removed');
      setFound('none');
      setDeleting(null);
    },
    onError: notifyError,
  });
  return (
    <>
      <PageHeader title="Keyless" />
      <Stack>
        <Paper withBorder p="md" component="section" aria-label="Find a keyless HWID">
          <Title order={3} size="h4" mb="sm">
            Find an HWID
          </Title>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (lookup.trim()) find.mutate(lookup.trim());
            }}
          >
            <Group align="flex-end" gap="xs" wrap="wrap">
              <TextInput
                label="HWID"
                value={lookup}
                onChange={(e) => setLookup(e.currentTarget.value)}
                required
                style={{ flex: '1 1 240px' }}
              />
              <Button type="submit" loading={find.isPending}>
                Find
              </Button>
            </Group>
          </form>
          {found === 'none' && (
            <Text size="sm" mt="sm">
              This HWID is not in the keyless list.
            </Text>
          )}
          {found && found !== 'none' && (
            <Group mt="sm" gap="sm" wrap="wrap">
              <Text ff="monospace" size="sm">
                {found.hwid}
              </Text>
              {found.isPremium && <Badge variant="outline">premium</Badge>}
              <Text size="sm">{found.expiresAt ? `until ${new Date(found.expiresAt).toLocaleString()}` : 'no expiry'}</Text>
              <Button size="xs" color="red" variant="light" onClick={() => setDeleting(found)}>
                Delete
              </Button>
            </Group>
          )}
        </Paper>
        <Paper withBorder p="md" component="section" aria-label="Add a keyless HWID">
          <Title order={3} size="h4" mb="sm">
            Add an HWID
          </Title>
          <Text size="sm" c="dimmed" mb="xs">
            A listed HWID passes validation without a key (default: one year).
          </Text>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              add.mutate();
            }}
          >
            <Stack>
              <TextInput label="HWID to add" value={hwid} onChange={(e) => setHwid(e.currentTarget.value)} required />
              <TextInput
                label="Expires at"
                description="Empty: one year from now"
                type="datetime-local"
                value={expiresAt}
                onChange={(e) => setExpiresAt(e.currentTarget.value)}
              />
              <Checkbox label="Premium" checked={isPremium} onChange={(e) => setPremium(e.currentTarget.checked)} />
              {add.error && (
                <Text c="red" size="sm" role="alert">
                  {messageOf(add.error)}
                </Text>
              )}
              <Button type="submit" w="fit-content" loading={add.isPending}>
                Add
              </Button>
            </Stack>
          </form>
        </Paper>
      </Stack>
      <ConfirmDialog
        opened={deleting !== null}
        title="Remove keyless HWID"
        onClose={() => setDeleting(null)}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        {deleting ? `HWID ${deleting.hwid} will need a key again.` : ''}
      </ConfirmDialog>
    </>
  );
}
