import { useState } from 'react';
import { Button, List, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { Section } from '../components/Section';
import { ErrorState, Loading } from '../components/states';
import { useSaveSettings } from './queries';
import { DISCORD_ID } from './steps';

/**
 * The Discord buyer role (contract §12.3): the role id is checked here with a sentence before it is sent, and the
 * role's state and last failures read as sentences. The bot token is the application's (ApplicationForm).
 */
export function BuyerRoleSection({ serviceId, chatRoleId }: { serviceId: string; chatRoleId: string | null }) {
  const [roleId, setRoleId] = useState(chatRoleId ?? '');
  const [formError, setFormError] = useState<string | null>(null);
  const status = useQuery({
    queryKey: ['discord-role', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/discord-role', { headers: serviceHeaders(serviceId) })),
  });
  const save = useSaveSettings(serviceId, 'Buyer role saved');
  const submit = () => {
    const role = roleId.trim();
    if (role && !DISCORD_ID.test(role)) {
      setFormError('The role id is 17 to 20 digits: in Server Settings → Roles, right-click the role and choose Copy Role ID.');
      return;
    }
    setFormError(null);
    save.mutate({ chatRoleId: role || null });
  };
  const s = status.data;
  return (
    <Section title="Buyer role">
      <Stack>
        <Text size="sm">
          Buyers get this role in your Discord server while they hold a valid key (after Redeem key, or Get role on the panel), and lose it
          when their last one ends. The bot needs the Manage Roles permission, and its own role must sit above this role in the server’s
          role list.
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack maw={560}>
            <TextInput
              label="Role id"
              description="Server Settings → Roles → right-click the role → Copy Role ID; empty turns the role off"
              value={roleId}
              onChange={(e) => setRoleId(e.currentTarget.value)}
            />
            {(formError ?? save.error) && (
              <Text c="red" size="sm" role="alert">
                {formError ?? messageOf(save.error)}
              </Text>
            )}
            <Button type="submit" loading={save.isPending} w="fit-content">
              Save buyer role
            </Button>
          </Stack>
        </form>
        {status.isPending && <Loading label="Loading the role status" />}
        {status.isError && <ErrorState error={status.error} retry={() => void status.refetch()} />}
        {s && (
          <Stack gap="xs" aria-label="Discord role status">
            <Text size="sm">
              {s.configured
                ? `The role is on: ${s.members} ${s.members === 1 ? 'buyer holds' : 'buyers hold'} it.`
                : `The role is off: ${[!s.botTokenSet && 'save the bot token under Discord application above', !s.roleId && 'save the role id', !s.serverBound && 'connect your server under Discord server above'].filter(Boolean).join(', ')}.`}
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
