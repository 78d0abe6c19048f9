import { useState } from 'react';
import { Button, Group, List, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { Section } from '../components/Section';
import { ErrorState, Loading } from '../components/states';

const ROLE_ID = /^[0-9]{17,20}$/;

/**
 * The Discord buyer role (contract §12.3): the bot token is write-only (shown only as set), the role id is checked here
 * with a sentence before it is sent, and the role's state and last failures read as sentences.
 */
export function DiscordRoleSettings({
  serviceId,
  chatRoleId,
  botTokenSet,
}: {
  serviceId: string;
  chatRoleId: string | null;
  botTokenSet: boolean;
}) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState('');
  const [roleId, setRoleId] = useState(chatRoleId ?? '');
  const [formError, setFormError] = useState<string | null>(null);
  const status = useQuery({
    queryKey: ['discord-role', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/discord-role', { headers: serviceHeaders(serviceId) })),
  });
  const save = useMutation({
    mutationFn: async (body: { chatBotToken?: string | null; chatRoleId?: string | null }) =>
      unwrap(await api.PUT('/api/v1/keys/api/settings', { headers: serviceHeaders(serviceId), body })),
    onSuccess: () => {
      setToken('');
      void queryClient.invalidateQueries({ queryKey: ['service-info', serviceId] });
      void queryClient.invalidateQueries({ queryKey: ['discord-role', serviceId] });
      notifySuccess('Discord role settings saved');
    },
  });
  const submit = () => {
    const role = roleId.trim();
    if (role && !ROLE_ID.test(role)) {
      setFormError('The role id is 17 to 20 digits: in Discord, right-click the role and choose Copy Role ID.');
      return;
    }
    setFormError(null);
    const body: { chatBotToken?: string; chatRoleId?: string | null } = { chatRoleId: role || null };
    if (token.trim()) body.chatBotToken = token.trim();
    save.mutate(body);
  };
  const s = status.data;
  return (
    <Section title="Discord buyer role">
      <Stack>
        <Text size="sm">
          Buyers get this role in your Discord server while they hold a valid key, and lose it when their last one ends. The bot needs the
          Manage Roles permission, and its own role must sit above this role in the server’s role list.
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack maw={560}>
            <PasswordInput
              label="Bot token"
              description={
                botTokenSet
                  ? 'Set; type a new one to replace it.'
                  : 'Not set. From the Bot page of your application in the Discord developer portal.'
              }
              autoComplete="off"
              value={token}
              onChange={(e) => setToken(e.currentTarget.value)}
            />
            <TextInput
              label="Role id"
              description="17 to 20 digits; empty turns the role off"
              value={roleId}
              onChange={(e) => setRoleId(e.currentTarget.value)}
            />
            {(formError ?? save.error) && (
              <Text c="red" size="sm" role="alert">
                {formError ?? messageOf(save.error)}
              </Text>
            )}
            <Group>
              <Button type="submit" loading={save.isPending}>
                Save Discord role
              </Button>
              {botTokenSet && (
                <Button variant="subtle" color="red" onClick={() => save.mutate({ chatBotToken: null })}>
                  Remove bot token
                </Button>
              )}
            </Group>
          </Stack>
        </form>
        {status.isPending && <Loading label="Loading the role status" />}
        {status.isError && <ErrorState error={status.error} retry={() => void status.refetch()} />}
        {s && (
          <Stack gap="xs" aria-label="Discord role status">
            <Text size="sm">
              {s.configured
                ? `The role is on: ${s.members} ${s.members === 1 ? 'buyer holds' : 'buyers hold'} it.`
                : `The role is off: ${[!s.botTokenSet && 'save the bot token', !s.roleId && 'save the role id', !s.serverBound && 'connect your Discord server under Discord commands above'].filter(Boolean).join(', ')}.`}
            </Text>
            {s.waiting.length > 0 && (
              <Text size="sm">
                {s.waiting.length} role {s.waiting.length === 1 ? 'change is' : 'changes are'} waiting to be sent
                {s.waiting[0]?.lastError ? ` (last answer: ${s.waiting[0].lastError})` : ''}.
              </Text>
            )}
            {s.failures.length > 0 && (
              <>
                <Text size="sm" fw={600}>
                  Last failures
                </Text>
                <List size="sm">
                  {s.failures.map((f, i) => (
                    <List.Item key={i}>
                      {new Date(f.at).toLocaleString()}: could not {f.action === 'grant' ? 'give the role to' : 'take the role from'}{' '}
                      Discord user {f.userId}: {f.reason}.
                    </List.Item>
                  ))}
                </List>
              </>
            )}
          </Stack>
        )}
      </Stack>
    </Section>
  );
}
