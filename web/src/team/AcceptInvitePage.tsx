import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Alert, Anchor, Button, Center, Divider, List, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, messageOf, unwrap } from '../api/client';
import type { ApiData } from '../api/types';
import { NewAccountFields } from '../auth/NewAccountFields';
import { useNewAccount } from '../auth/useNewAccount';
import { SESSION_KEY, useSession, useSignOut } from '../auth/session';
import { ErrorState, Loading } from '../components/states';
import { describePolicy, policyOf } from '../keys/resellerPolicy';
import { SERVICES_KEY } from '../services/queries';
import { ROLE_MEANS, ROLE_NAMES, type Role } from './roles';

/**
 * {base_url}/invite/<code> (contract §17, §25): says what the invite is (the service, the role, a reseller's quota and
 * key policy, who invited, until when), then joins: a signed-in visitor accepts, anyone else creates an account here
 * (even when registration is closed: the invite is the permission) and is signed in and on the team in one step.
 */
export default function AcceptInvitePage() {
  const { code = '' } = useParams();
  const session = useSession();
  const info = useQuery({
    queryKey: ['invite', code],
    queryFn: async () => unwrap(await api.GET('/api/v1/invites/{code}', { params: { path: { code } } })),
    retry: false,
  });
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="lg" radius="md" w="100%" maw={480}>
        {info.isPending || session.isPending ? (
          <Loading label="Reading the invite" />
        ) : info.isError ? (
          info.error instanceof ApiError && info.error.status === 404 ? (
            <Stack>
              <Title order={1} size="h2">
                This invite link does not work
              </Title>
              <Text>It was already used, withdrawn, or is more than 7 days old. Ask the person who invited you for a new link.</Text>
            </Stack>
          ) : (
            <ErrorState error={info.error} retry={() => void info.refetch()} />
          )
        ) : (
          <Stack>
            <InviteSummary invite={info.data} />
            <Divider />
            {session.data ? <AcceptAs code={code} username={session.data.account.username} /> : <RegisterAndJoin code={code} />}
          </Stack>
        )}
      </Paper>
    </Center>
  );
}

type Invite = ApiData<'/api/v1/invites/{code}'>;

function InviteSummary({ invite }: { invite: Invite }) {
  const role = invite.role as Role;
  const terms = invite.quota
    ? [`${invite.quota.keysLeft.toLocaleString()} keys to generate`, ...describePolicy(policyOf({ ...invite.quota, ...invite.policy }))]
    : [];
  return (
    <Stack gap="xs">
      <Title order={1} size="h2">
        Join {invite.service.name}
      </Title>
      <Text>
        <b>{invite.invitedBy.username}</b> invites you to their team on <b>{invite.service.name}</b> as <b>{ROLE_NAMES[role] ?? role}</b>
        {ROLE_MEANS[role] ? `: ${ROLE_MEANS[role]}.` : '.'}
      </Text>
      {terms.length > 0 && (
        <>
          <Text size="sm" fw={500}>
            What you may do as a reseller
          </Text>
          <List size="sm" aria-label="Your quota and key policy">
            {terms.map((term) => (
              <List.Item key={term}>{term[0]!.toUpperCase() + term.slice(1)}</List.Item>
            ))}
          </List>
        </>
      )}
      <Text size="xs" c="dimmed">
        The link works once, until {new Date(invite.expiresAt).toLocaleString()}.
      </Text>
    </Stack>
  );
}

/** After joining: the session (and its CSRF token) and the services list are read again, then the service opens. */
function useJoined() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return async (serviceId: string) => {
    await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    await queryClient.invalidateQueries({ queryKey: SERVICES_KEY });
    navigate(`/services/${serviceId}`, { replace: true });
  };
}

function AcceptAs({ code, username }: { code: string; username: string }) {
  const joined = useJoined();
  const signOut = useSignOut();
  const accept = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/invites/{code}/accept', { params: { path: { code } } })),
    onSuccess: (data) => joined(data.service.id),
  });
  return (
    <Stack gap="sm">
      <Text size="sm">
        You are signed in as <b>{username}</b>. Accepting adds this account to the team.
      </Text>
      {accept.error ? (
        <Alert color="red" role="alert">
          {messageOf(accept.error)}
        </Alert>
      ) : null}
      <Button onClick={() => accept.mutate()} loading={accept.isPending}>
        Accept the invite
      </Button>
      <Text size="sm" c="dimmed">
        Not you?{' '}
        <Anchor component="button" type="button" onClick={() => void signOut()}>
          Sign out
        </Anchor>{' '}
        to join with another account or create one.
      </Text>
    </Stack>
  );
}

function RegisterAndJoin({ code }: { code: string }) {
  const joined = useJoined();
  const account = useNewAccount();
  const [problem, setProblem] = useState<string | null>(null);
  const register = useMutation({
    mutationFn: async (body: NonNullable<typeof account.body>) =>
      unwrap(await api.POST('/api/v1/invites/{code}/register', { params: { path: { code } }, body })),
    onSuccess: (data) => joined(data.service.id),
    onError: account.retry,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    if (!account.body) return setProblem('Complete the captcha first.');
    register.mutate(account.body);
  };
  const next = encodeURIComponent(`/invite/${code}`);
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Text size="sm">Create your account to join. You are signed in and on the team right after.</Text>
        <NewAccountFields {...account.fields} />
        {problem || register.error ? (
          <Alert color="red" role="alert">
            {problem ?? messageOf(register.error)}
          </Alert>
        ) : null}
        <Button type="submit" loading={register.isPending}>
          Create account and join
        </Button>
        <Text size="sm" c="dimmed">
          Already have an account?{' '}
          <Anchor component={Link} to={`/login?next=${next}`}>
            Sign in
          </Anchor>{' '}
          to accept with it.
        </Text>
      </Stack>
    </form>
  );
}
