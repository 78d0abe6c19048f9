import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Alert, Anchor, Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { ApiError, api, messageOf, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { NewAccountFields } from './NewAccountFields';
import { useNewAccount } from './useNewAccount';

export function RegisterPage() {
  const navigate = useNavigate();
  const account = useNewAccount();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    const body = account.body;
    if (!body) return setError('Complete the captcha first.');
    setBusy(true);
    try {
      unwrap(await api.POST('/api/v1/auth/register', { body }));
      notifySuccess('Account created: sign in now.');
      navigate('/login');
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 403
          ? 'Registration is closed on this server; ask its operator for an account.'
          : messageOf(err),
      );
      account.retry();
    } finally {
      setBusy(false);
    }
  }

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="lg" radius="md" w="100%" maw={420}>
        <form onSubmit={submit} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Create an account
            </Title>
            <NewAccountFields {...account.fields} />
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy}>
              Register
            </Button>
            <Text size="sm" c="dimmed">
              Have an account?{' '}
              <Anchor component={Link} to="/login">
                Sign in
              </Anchor>
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
