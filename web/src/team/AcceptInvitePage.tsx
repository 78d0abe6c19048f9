import { Button, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { api, messageOf, unwrap } from '../api/client';
import { SERVICES_KEY } from '../services/queries';

/** {base_url}/invite/<code> (contract §17): the signed-in account joins the service the invite is for. */
export default function AcceptInvitePage() {
  const { code = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const accept = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/invites/{code}/accept', { params: { path: { code } } })),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: SERVICES_KEY });
      navigate(`/services/${data.service.id}`, { replace: true });
    },
  });
  return (
    <Paper withBorder p="lg" maw={520} mx="auto" mt="xl">
      <Stack>
        <Title order={2}>You are invited to a team</Title>
        <Text>Accepting adds this account to the service, with the role the owner chose. The link works once.</Text>
        {accept.error && (
          <Text c="red" role="alert">
            {messageOf(accept.error)}
          </Text>
        )}
        <Button onClick={() => accept.mutate()} loading={accept.isPending}>
          Accept the invite
        </Button>
      </Stack>
    </Paper>
  );
}
