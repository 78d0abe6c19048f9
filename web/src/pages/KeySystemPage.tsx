import { useState } from 'react';
import { Anchor, Button, Group, NativeSelect, Paper, PasswordInput, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, messageOf, serviceHeaders, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { RangeInput } from '../components/RangeInput';
import { firstProblem, rangeProblem } from '../lib/numbers';

/** The ranges of contract §8, refused in the form with a sentence (never clamped). */
const KEY_SYSTEM_RANGES = {
  checkpoints: { label: 'Checkpoints', min: 1, max: 5 },
  keyHours: { label: 'Key lifetime (hours)', subject: 'The key lifetime', min: 1, max: 720, unit: 'hours' },
  minSeconds: { label: 'Minimum seconds per checkpoint', subject: 'The minimum time per checkpoint', min: 0, max: 600, unit: 'seconds' },
  perAddress: { label: 'Keys per address per day', min: 0, max: 1000 },
};

const PATH = '/api/v1/keys/api/key-system' as const;
/** The settings as the API answers them (the typed client's schema, generated from the server). */
type KeySystem = paths[typeof PATH]['get']['responses'][200]['content']['application/json']['data'];
type Provider = KeySystem['provider'];

/** What "Provider API token" means for each provider (README, Key system → Provider setup). */
const TOKEN_FIELD: Record<Exclude<Provider, 'none'>, { label: string; hint: string; placeholder?: string }> = {
  linkvertise: { label: 'Linkvertise anti-bypassing token', hint: 'From Linkvertise’s anti-bypassing settings' },
  workink: {
    label: 'Work.ink link ids',
    hint: 'Your Work.ink link ids, comma-separated (Work.ink’s check needs no key; a token must come from one of these links)',
    placeholder: '10345,10346',
  },
  lootlabs: { label: 'Lootlabs API token', hint: 'From the Advanced tab of the Lootlabs panel' },
};

function KeySystemForm({ settings, serviceId }: { settings: KeySystem; serviceId: string }) {
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(settings.enabled);
  const [checkpoints, setCheckpoints] = useState<number | string>(settings.checkpoints);
  const [keyHours, setKeyHours] = useState<number | string>(settings.keyHours);
  const [minSeconds, setMinSeconds] = useState<number | string>(settings.minSecondsPerCheckpoint);
  const [provider, setProvider] = useState(settings.provider);
  const [links, setLinks] = useState<string[]>(settings.links);
  const [token, setToken] = useState('');
  const [pageTitle, setPageTitle] = useState(settings.pageTitle ?? '');
  const [accent, setAccent] = useState(settings.accentColor ?? '');
  const accentProblem =
    accent.trim() && !/^#[0-9a-fA-F]{6}$/.test(accent.trim()) ? 'Write the colour as # and six hex digits, e.g. #4c6ef5.' : null;
  const [perAddress, setPerAddress] = useState<number | string>(settings.maxKeysPerAddressPerDay);
  const [tried, setTried] = useState(false);
  // The links shown follow the checkpoints typed, within 1–5; the number itself is never changed.
  const count = Math.min(5, Math.max(1, Number(checkpoints) || 1));
  const problem = firstProblem(
    rangeProblem(checkpoints, KEY_SYSTEM_RANGES.checkpoints),
    rangeProblem(keyHours, KEY_SYSTEM_RANGES.keyHours),
    rangeProblem(minSeconds, KEY_SYSTEM_RANGES.minSeconds),
    rangeProblem(perAddress, KEY_SYSTEM_RANGES.perAddress),
  );
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT(PATH, {
          headers: serviceHeaders(serviceId),
          body: {
            enabled,
            checkpoints: Number(checkpoints),
            keyHours: Number(keyHours),
            minSecondsPerCheckpoint: Number(minSeconds),
            provider,
            links: provider === 'none' ? [] : links.slice(0, count).map((l) => l.trim()),
            // Write-only: an empty field keeps the stored token.
            ...(token.trim() ? { providerToken: token.trim() } : {}),
            pageTitle: pageTitle.trim() || null,
            accentColor: accent.trim() || null,
            maxKeysPerAddressPerDay: Number(perAddress),
          },
        }),
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(['key-system', serviceId], data);
      setToken('');
      notifySuccess('Key system saved');
    },
  });
  const publicUrl = settings.pageUrl;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if (problem || accentProblem) return;
        save.mutate();
      }}
    >
      <Stack maw={640}>
        <Text size="sm">
          Get-key page:{' '}
          <Anchor href={publicUrl} target="_blank" rel="noreferrer">
            {publicUrl}
          </Anchor>
          {!settings.enabled && ' (answers 404 until enabled)'}
        </Text>
        <Switch label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <TextInput label="Page title" maxLength={100} value={pageTitle} onChange={(e) => setPageTitle(e.currentTarget.value)} />
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Accent colour"
            description="The get-key page's buttons and progress bar; empty: the default blue"
            placeholder="#228be6"
            value={accent}
            onChange={(e) => setAccent(e.currentTarget.value)}
            error={accentProblem}
            style={{ flex: '1 1 200px' }}
          />
          <input
            type="color"
            aria-label="Pick the accent colour"
            value={/^#[0-9a-fA-F]{6}$/.test(accent) ? accent : '#228be6'}
            onChange={(e) => setAccent(e.currentTarget.value)}
            style={{ width: 42, height: 36, border: 0, background: 'none', padding: 0 }}
          />
        </Group>
        <Group grow wrap="wrap">
          <RangeInput range={KEY_SYSTEM_RANGES.checkpoints} value={checkpoints} onChange={setCheckpoints} showEmpty={tried} />
          <RangeInput range={KEY_SYSTEM_RANGES.keyHours} value={keyHours} onChange={setKeyHours} showEmpty={tried} />
          <RangeInput range={KEY_SYSTEM_RANGES.minSeconds} value={minSeconds} onChange={setMinSeconds} showEmpty={tried} />
        </Group>
        <RangeInput
          range={KEY_SYSTEM_RANGES.perAddress}
          description="0: no limit"
          value={perAddress}
          onChange={setPerAddress}
          showEmpty={tried}
        />
        <NativeSelect
          label="Ad provider"
          value={provider}
          onChange={(e) => setProvider(e.currentTarget.value as Provider)}
          data={[
            { value: 'none', label: 'None (no ads)' },
            { value: 'linkvertise', label: 'Linkvertise' },
            { value: 'workink', label: 'Work.ink' },
            { value: 'lootlabs', label: 'Lootlabs' },
          ]}
        />
        {provider !== 'none' && (
          <>
            {Array.from({ length: count }, (_, i) => (
              <TextInput
                key={i}
                label={`Link for checkpoint ${i + 1}`}
                placeholder="https://…"
                value={links[i] ?? ''}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  setLinks((current) => {
                    const next = [...current];
                    next[i] = value;
                    return next;
                  });
                }}
                required
              />
            ))}
            <PasswordInput
              label={TOKEN_FIELD[provider].label}
              placeholder={TOKEN_FIELD[provider].placeholder}
              description={
                settings.providerToken && provider === settings.provider
                  ? `Stored; leave empty to keep it. ${TOKEN_FIELD[provider].hint}`
                  : TOKEN_FIELD[provider].hint
              }
              value={token}
              onChange={(e) => setToken(e.currentTarget.value)}
              autoComplete="off"
            />
          </>
        )}
        {tried && problem && (
          <Text c="red" size="sm" role="alert">
            {problem}
          </Text>
        )}
        {save.error && (
          <Text c="red" size="sm" role="alert">
            {messageOf(save.error)}
          </Text>
        )}
        <Button type="submit" w="fit-content" loading={save.isPending}>
          Save key system
        </Button>
      </Stack>
    </form>
  );
}

export default function KeySystemPage() {
  const serviceId = useServiceId();
  const settings = useQuery({
    queryKey: ['key-system', serviceId],
    queryFn: async () => {
      try {
        return unwrap(await api.GET(PATH, { headers: serviceHeaders(serviceId) }));
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
  return (
    <>
      <PageHeader title="Key system" />
      {settings.isPending ? (
        <Loading label="Loading the key system" />
      ) : settings.isError ? (
        <ErrorState error={settings.error} retry={() => void settings.refetch()} />
      ) : settings.data === null ? (
        <Empty title="Not configured">This server does not offer the key system (its route answered 404).</Empty>
      ) : (
        <Paper withBorder p="md">
          <KeySystemForm settings={settings.data} serviceId={serviceId} />
        </Paper>
      )}
    </>
  );
}
