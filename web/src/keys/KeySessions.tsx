import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { formatTime } from './types';

/**
 * A key's live sessions (contract §18, §21 "Live now"): where the key runs right now, each with "End session", which
 * stops that run at its next heartbeat. `canEnd`: ending sessions is the role table's service.configure (contract §17), so
 * support staff and resellers see the sessions without the button.
 */
export function KeySessions({ serviceId, keyString, canEnd }: { serviceId: string; keyString: string; canEnd: boolean }) {
  const queryClient = useQueryClient();
  const headers = serviceHeaders(serviceId);
  const queryKey = ['key-sessions', serviceId, keyString];
  const sessions = useQuery({
    queryKey,
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/sessions', { headers, params: { query: { key: keyString } } })),
    refetchInterval: 15_000,
  });
  const end = useMutation({
    mutationFn: async (sessionId: string) => unwrap(await api.POST('/api/v1/keys/api/sessions/kill', { headers, body: { sessionId } })),
    onSuccess: () => {
      notifySuccess('Session ended: the script stops at its next heartbeat');
      void queryClient.invalidateQueries({ queryKey });
      void queryClient.invalidateQueries({ queryKey: ['overview-status', serviceId] });
    },
  });
  const items = sessions.data?.items ?? [];
  return (
    <Stack gap="xs" component="section" aria-label="Live sessions">
      <Title order={5}>Live sessions</Title>
      {sessions.isError ? (
        <Text size="sm" c="red">
          The live sessions could not be read.
        </Text>
      ) : items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {sessions.isPending ? 'Loading…' : 'This key is not running anywhere right now.'}
        </Text>
      ) : (
        <Table fz="sm" aria-label="Live sessions of this key">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>HWID</Table.Th>
              <Table.Th>Started</Table.Th>
              <Table.Th>Last heartbeat</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((session) => (
              <Table.Tr key={session.sessionId}>
                <Table.Td>{session.hwid}</Table.Td>
                <Table.Td>{formatTime(session.startedAt)}</Table.Td>
                <Table.Td>{formatTime(session.lastSeenAt)}</Table.Td>
                <Table.Td>
                  <Group justify="flex-end">
                    {canEnd && (
                      <Button
                        size="xs"
                        color="red"
                        variant="light"
                        loading={end.isPending && end.variables === session.sessionId}
                        onClick={() => end.mutate(session.sessionId)}
                      >
                        End session
                      </Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
