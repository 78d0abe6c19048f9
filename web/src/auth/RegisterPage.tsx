import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Alert, Anchor, Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { ApiError, api, messageOf, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { NewAccountFields } from './NewAccountFields';

export function RegisterPage() {
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [captcha, setCaptcha] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!captcha) return setError('Complete the captcha first.');
    setBusy(true);
    try {
      unwrap(await api.POST('/api/v1/auth/register', { body: { username: username.trim(), password, captcha } }));
      notifySuccess('Account created: sign in now.');
      navigate('/login');
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 403
          ? 'Registration is closed on this server; ask its operator for an account.'
          : messageOf(err),
      );
      setGeneration((g) => g + 1);
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
            <NewAccountFields
              username={username}
              onUsername={setUsername}
              password={password}
              onPassword={setPassword}
              onCaptcha={setCaptcha}
              captchaGeneration={generation}
            />
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
