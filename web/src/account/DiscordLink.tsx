import { useState } from 'react';
import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, unwrap } from '../api/client';
import { MONO_INPUT } from '../components/monoInput';
import { Section } from '../components/Section';
import { notifySuccess } from '../components/notify';

const DISCORD_USER_ID = /^[0-9]{17,20}$/;

/**
 * The account's Discord user (contract §24.3): staff commands in a service's server are served for the owner's and
 * members' linked users, by their role there; anyone else is refused.
 */
export function DiscordLink({ discordUserId }: { discordUserId: string | null }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState(discordUserId ?? '');
  const [formError, setFormError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (id: string | null) => unwrap(await api.PATCH('/api/v1/account', { body: { discordUserId: id } })),
    onSuccess: (_data, id) => {
      void queryClient.invalidateQueries({ queryKey: ['account'] });
      notifySuccess(id ? 'Discord user linked' : 'Discord user unlinked');
    },
  });
  const submit = () => {
    const id = value.trim();
    if (id && !DISCORD_USER_ID.test(id)) {
      return setFormError('A Discord user id is 17 to 20 digits, not your username: see the hint below the field.');
    }
    setFormError(null);
    save.mutate(id || null);
  };
  const error = formError ?? (save.error ? messageOf(save.error) : null);
  return (
    <Section title="Discord account">
      <Stack maw={560} gap="xs">
        <Text size="sm">
          {discordUserId
            ? `Linked to Discord user ${discordUserId}: staff commands such as /whitelist work for you in each service’s server, as your role there allows.`
            : 'Link your Discord user so staff commands such as /whitelist work for you in the servers of the services you are on.'}
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack gap="xs">
            <TextInput
              label="Discord user id"
              description="In Discord: User Settings → Advanced → turn on Developer Mode, then right-click your name and choose Copy User ID. Empty unlinks."
              inputMode="numeric"
              autoComplete="off"
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
              styles={MONO_INPUT}
              maw={360}
            />
            {error && (
              <Text c="red" size="sm" role="alert">
                {error}
              </Text>
            )}
            <Group gap="xs">
              <Button type="submit" loading={save.isPending}>
                Save Discord user
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Section>
  );
}
