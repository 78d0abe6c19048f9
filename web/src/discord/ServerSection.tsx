import { useState } from 'react';
import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { useRefreshDiscord, type Settings } from './queries';

/**
 * Which Discord server the commands and the panel act in (the chat connect flow of §4): a slash command or a button
 * from anywhere else answers a private refusal. Binding saves the settings, which syncs the commands by itself.
 */
export function ServerSection({ serviceId, settings }: { serviceId: string; settings: Settings }) {
  const refresh = useRefreshDiscord(serviceId);
  const [guildId, setGuildId] = useState('');
  const [guildName, setGuildName] = useState('');
  const [confirmDisconnect, setConfirmDisconnect] = useState(false);
  const connect = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/keys/api/chat/connect', {
          headers: serviceHeaders(serviceId),
          body: { guildId: guildId.trim(), guildName: guildName.trim() },
        }),
      ),
    onSuccess: () => {
      refresh();
      notifySuccess('Discord server connected');
      setGuildId('');
      setGuildName('');
    },
    onError: notifyError,
  });
  const disconnect = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/keys/api/chat/disconnect', { headers: serviceHeaders(serviceId), body: {} })),
    onSuccess: () => {
      refresh();
      setConfirmDisconnect(false);
      notifySuccess('Discord server disconnected');
    },
    onError: notifyError,
  });
  const chat = settings.chat;
  return (
    <Section title="Discord server">
      <Stack>
        <Text size="sm">
          {chat
            ? `Bound to “${chat.guildName}” (${chat.guildId}).`
            : 'No server connected yet: buttons and commands answer nowhere until you connect one.'}
        </Text>
        {chat ? (
          <Button color="red" variant="light" w="fit-content" onClick={() => setConfirmDisconnect(true)}>
            Disconnect Discord server
          </Button>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              connect.mutate();
            }}
          >
            <Group align="flex-end" gap="xs" wrap="wrap">
              <TextInput
                label="Server id"
                description="In Discord, right-click the server’s icon → Copy Server ID (turn on User Settings → Advanced → Developer Mode first)"
                inputMode="numeric"
                value={guildId}
                onChange={(e) => setGuildId(e.currentTarget.value)}
                style={{ flex: '1 1 260px' }}
                required
              />
              <TextInput
                label="Server name"
                description="As you want to see it here"
                value={guildName}
                onChange={(e) => setGuildName(e.currentTarget.value)}
                style={{ flex: '1 1 200px' }}
                required
              />
              <Button type="submit" loading={connect.isPending}>
                Connect
              </Button>
            </Group>
          </form>
        )}
      </Stack>
      <ConfirmDialog
        opened={confirmDisconnect}
        title="Disconnect Discord server"
        onClose={() => setConfirmDisconnect(false)}
        busy={disconnect.isPending}
        onConfirm={() => disconnect.mutate()}
      >
        The buyer panel’s buttons and the staff commands stop working in that server until you connect it again.
      </ConfirmDialog>
    </Section>
  );
}
