import { useEffect, useState } from 'react';
import { Badge, Button, Code, Group, Image, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { api, messageOf, unwrap } from '../api/client';
import { VaultSection } from '../account/VaultSection';
import { DiscordLink } from '../account/DiscordLink';
import { forgetVaultToken } from '../account/vault';
import { AuditTable } from '../audit/AuditTable';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { SecretKeyControls } from '../components/SecretKeyControls';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { ErrorState, Loading, PageHeader } from '../components/states';
import { secretOf } from '../lib/otpauth';
import { roleLabel } from '../lib/labels';
import type { ApiData } from '../api/types';

type Account = ApiData<'/api/v1/account'>;

function AccountKey() {
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const reveal = useMutation({
    mutationFn: async () => unwrap(await api.GET('/api/v1/account/api-key')),
    onSuccess: (d) => setApiKey(d.apiKey),
    onError: notifyError,
  });
  const regenerate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/account/api-key/regenerate')),
    onSuccess: (d) => {
      setApiKey(d.apiKey);
      setConfirm(false);
      // Vault tokens bought with the old key are refused from now on.
      forgetVaultToken();
      notifySuccess('Account key regenerated: the old one and its vault tokens no longer work');
    },
    onError: notifyError,
  });
  return (
    <Section title="Account key">
      <Text size="sm" mb="xs">
        Signs in without a password and opens the vault. Anyone holding it acts as you.
      </Text>
      <SecretKeyControls
        valueLabel="Account key value"
        value={apiKey}
        revealing={reveal.isPending}
        onReveal={() => reveal.mutate()}
        onRegenerate={() => setConfirm(true)}
      />
      <ConfirmDialog
        opened={confirm}
        title="Regenerate account key"
        onClose={() => setConfirm(false)}
        busy={regenerate.isPending}
        onConfirm={() => regenerate.mutate()}
      >
        The current account key stops working at once, and so do vault tokens obtained with it.
      </ConfirmDialog>
    </Section>
  );
}

function TwoFactor({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  const [uri, setUri] = useState<string | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState('');
  useEffect(() => {
    if (!uri) return setQr(null);
    let live = true;
    void QRCode.toDataURL(uri, { margin: 1, width: 200 }).then((url) => live && setQr(url));
    return () => {
      live = false;
    };
  }, [uri]);
  const done = (message: string) => {
    void queryClient.invalidateQueries({ queryKey: ['account'] });
    setUri(null);
    setCode('');
    notifySuccess(message);
  };
  const setup = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/account/2fa/setup')),
    onSuccess: (d) => setUri(d.otpauthUri),
    onError: notifyError,
  });
  const enable = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/account/2fa/enable', { body: { totp: code.trim() } })),
    onSuccess: () => done('Two-factor authentication is on'),
  });
  const disable = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/account/2fa/disable', { body: { totp: code.trim() } })),
    onSuccess: () => done('Two-factor authentication is off'),
  });
  const action = account.twoFactorEnabled ? disable : enable;
  return (
    <Section title="Two-factor authentication">
      <Stack>
        <Group gap="xs">
          <Text size="sm">Status:</Text>
          <Badge color={account.twoFactorEnabled ? 'green' : 'gray'}>{account.twoFactorEnabled ? 'on' : 'off'}</Badge>
        </Group>
        {!account.twoFactorEnabled && !uri && (
          <Button w="fit-content" onClick={() => setup.mutate()} loading={setup.isPending}>
            Set up two-factor authentication
          </Button>
        )}
        {uri && (
          <Stack gap="xs">
            <Text size="sm">Scan this with an authenticator app, then enter the code it shows.</Text>
            {qr ? <Image src={qr} alt="QR code" w={200} h={200} /> : <Loading label="Drawing the QR code" />}
            <Text size="xs">
              Or type the secret: <Code aria-label="Two-factor secret">{secretOf(uri)}</Code>
            </Text>
          </Stack>
        )}
        {(uri || account.twoFactorEnabled) && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              action.mutate();
            }}
          >
            <Group align="flex-end" gap="xs" wrap="wrap">
              <TextInput
                label="Authenticator code"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={8}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                required
              />
              <Button type="submit" color={account.twoFactorEnabled ? 'red' : undefined} loading={action.isPending}>
                {account.twoFactorEnabled ? 'Disable two-factor' : 'Enable two-factor'}
              </Button>
            </Group>
            {action.error && (
              <Text c="red" size="sm" role="alert" mt="xs">
                {messageOf(action.error)}
              </Text>
            )}
          </form>
        )}
      </Stack>
    </Section>
  );
}

export default function AccountPage() {
  const account = useQuery({ queryKey: ['account'], queryFn: async () => unwrap(await api.GET('/api/v1/account')) });
  return (
    <>
      <PageHeader title="Account" />
      {account.isPending ? (
        <Loading label="Loading the account" />
      ) : account.isError ? (
        <ErrorState error={account.error} retry={() => void account.refetch()} />
      ) : (
        <Stack>
          <Text size="sm">
            Signed in as <b>{account.data.username}</b> ({roleLabel(account.data.role).toLowerCase()}), since{' '}
            {new Date(account.data.createdAt).toLocaleDateString()}.
          </Text>
          <AccountKey />
          <TwoFactor account={account.data} />
          <DiscordLink key={account.data.discordUserId ?? ''} discordUserId={account.data.discordUserId} />
          <VaultSection accountId={account.data.id} />
          <Section title="Account audit log">
            <AuditTable label="Account audit log" />
          </Section>
        </Stack>
      )}
    </>
  );
}
