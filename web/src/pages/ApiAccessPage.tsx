import { useEffect, useState } from 'react';
import { MONO_INPUT } from '../components/monoInput';
import { Button, Code, List, Stack, Switch, Text, Textarea } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { SecretKeyControls } from '../components/SecretKeyControls';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { parseAllowlist, validateAllowlist } from '../lib/allowlist';
import type { ApiData } from '../api/types';
import { LuarmorSwitchSection } from './LuarmorSwitchSection';

type Permissions = ApiData<'/api/v1/services/{id}/permissions'>;

const PERMISSIONS: Array<{ name: keyof Permissions; label: string; description: string }> = [
  {
    name: 'allowManageKeys',
    label: 'Manage keys',
    description: 'The service key may change keys, keyless, blacklist and settings (reads are always allowed).',
  },
  { name: 'allowVss', label: 'Scripts', description: 'The service key may upload and change scripts.' },
  { name: 'allowUrlShortener', label: 'URL shortener', description: 'The service key may create short links.' },
];

export default function ApiAccessPage() {
  const serviceId = useServiceId();
  const path = { params: { path: { id: serviceId } } };
  const queryClient = useQueryClient();
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [confirmRegenerate, setConfirmRegenerate] = useState(false);
  const [allowlist, setAllowlist] = useState('');
  const [checked, setChecked] = useState(false);
  const problems = validateAllowlist(parseAllowlist(allowlist));

  const reveal = useMutation({
    mutationFn: async () => unwrap(await api.GET('/api/v1/services/{id}/api-key', path)),
    onSuccess: (data) => setApiKey(data.apiKey),
    onError: notifyError,
  });
  const regenerate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/services/{id}/api-key/regenerate', path)),
    onSuccess: (data) => {
      setApiKey(data.apiKey);
      setConfirmRegenerate(false);
      notifySuccess('Service key regenerated: the old one no longer works');
    },
    onError: notifyError,
  });
  const permissions = useQuery({
    queryKey: ['permissions', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/services/{id}/permissions', path)),
  });
  const setPermission = useMutation({
    mutationFn: async (change: Partial<Permissions>) =>
      unwrap(await api.PATCH('/api/v1/services/{id}/permissions', { ...path, body: change })),
    onSuccess: (data) => queryClient.setQueryData(['permissions', serviceId], data),
    onError: notifyError,
  });
  const allow = useQuery({
    queryKey: ['ip-allowlist', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/services/{id}/ip-allowlist', path)),
  });
  useEffect(() => {
    if (allow.data) setAllowlist(allow.data.entries.join('\n'));
  }, [allow.data]);
  const saveAllowlist = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT('/api/v1/services/{id}/ip-allowlist', {
          ...path,
          body: { entries: parseAllowlist(allowlist) },
        }),
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(['ip-allowlist', serviceId], data);
      notifySuccess(data.entries.length ? 'Allowlist saved' : 'Allowlist cleared: every address may use the service key');
    },
    onError: notifyError,
  });

  return (
    <>
      <PageHeader title="API access" />
      <Stack>
        <Section title="Service key">
          <Text size="sm" mb="xs">
            Send it as <Code>X-API-Key</Code> on /api/v1/keys/api and /api/v1/vss/api routes. Keep it on your server.
          </Text>
          <SecretKeyControls
            valueLabel="Service key value"
            value={apiKey}
            revealing={reveal.isPending}
            onReveal={() => reveal.mutate()}
            onRegenerate={() => setConfirmRegenerate(true)}
          />
        </Section>

        <Section title="Permissions">
          {permissions.isPending ? (
            <Loading />
          ) : permissions.isError ? (
            <ErrorState error={permissions.error} retry={() => void permissions.refetch()} />
          ) : (
            <Stack gap="sm">
              {PERMISSIONS.map((p) => (
                <Switch
                  key={p.name}
                  label={p.label}
                  description={p.description}
                  checked={permissions.data[p.name]}
                  onChange={(e) => setPermission.mutate({ [p.name]: e.currentTarget.checked })}
                />
              ))}
            </Stack>
          )}
        </Section>

        <Section title="IP allowlist">
          {allow.isPending ? (
            <Loading />
          ) : allow.isError ? (
            <ErrorState error={allow.error} retry={() => void allow.refetch()} />
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                // The same rules as the server: a wrong entry is named here and nothing is sent.
                setChecked(true);
                if (problems.length === 0) saveAllowlist.mutate();
              }}
            >
              <Stack>
                <Textarea
                  label="Allowed addresses"
                  description="One address or CIDR range per line; empty allows every address"
                  autosize
                  minRows={3}
                  styles={MONO_INPUT}
                  value={allowlist}
                  onChange={(e) => setAllowlist(e.currentTarget.value)}
                  onBlur={() => setChecked(true)}
                  error={
                    checked && problems.length > 0
                      ? `${problems.length} entr${problems.length === 1 ? 'y is' : 'ies are'} not valid`
                      : undefined
                  }
                />
                {checked && problems.length > 0 && (
                  <div role="alert" aria-label="Allowlist problems">
                    <List size="sm" c="red">
                      {problems.map((p) => (
                        <List.Item key={`${p.index}:${p.entry}`}>
                          {p.index < 0 ? p.message : `Entry ${p.index + 1} “${p.entry}”: ${p.message}`}
                        </List.Item>
                      ))}
                    </List>
                  </div>
                )}
                <Button type="submit" w="fit-content" loading={saveAllowlist.isPending}>
                  Save allowlist
                </Button>
              </Stack>
            </form>
          )}
        </Section>

        <LuarmorSwitchSection serviceId={serviceId} serviceKey={apiKey} />
      </Stack>
      <ConfirmDialog
        opened={confirmRegenerate}
        title="Regenerate service key"
        onClose={() => setConfirmRegenerate(false)}
        busy={regenerate.isPending}
        onConfirm={() => regenerate.mutate()}
      >
        The current service key stops working at once; update every server that uses it.
      </ConfirmDialog>
    </>
  );
}
