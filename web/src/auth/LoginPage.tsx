import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, api, messageOf, unwrap } from '../api/client';
import { Captcha } from './Captcha';
import { SESSION_KEY, fetchSession, useSession } from './session';
import { safeNext } from '../lib/safeNext';

/** "45 seconds", "2 minutes": how long to wait, from the server's retryAfter (or the seconds its sentence names). */
export function waitWords(error: ApiError): string {
  const seconds = error.body.retryAfter ?? Number(/(\d+) seconds/.exec(error.message)?.[1] ?? 60);
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

/**
 * Two different refusals share 429 RATE_LIMITED (contract §22): too many requests from this address (§5), which the
 * account key does not get round, and the per-username lockout (§10), which it does; that hint is given only for the
 * lockout, and only to someone not already signing in with the key.
 */
export function describeLoginError(error: unknown, withKey = false): string {
  if (!(error instanceof ApiError)) return messageOf(error);
  if (error.code === 'RATE_LIMITED' || error.status === 429) {
    if (error.body.reason === 'account-locked') {
      const hint = withKey ? '' : ' You can still sign in with the account key (switch on "Sign in with API key").';
      return `Too many failed sign-ins for this account: wait ${waitWords(error)}, then try again.${hint}`;
    }
    return `Too many sign-in attempts from your address: wait ${waitWords(error)}, then try again.`;
  }
  if (error.code === 'TOTP_INVALID' || /code/i.test(error.message)) return error.message;
  return error.message;
}

export function LoginPage() {
  const session = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));

  const [withKey, setWithKey] = useState(false);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [accountKey, setAccountKey] = useState('');
  const [totp, setTotp] = useState('');
  // After a right password with two-factor on: the server's step token, so the code follows alone (no captcha again).
  const [stepToken, setStepToken] = useState<string | null>(null);
  const [captcha, setCaptcha] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (session.data) return <Navigate to={next} replace />;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (stepToken && !/^[0-9]{6}$/.test(totp.trim())) return setError('Enter the 6-digit code from your authenticator app.');
    if (!stepToken && !captcha) return setError('Complete the captcha first.');
    setBusy(true);
    try {
      const body = stepToken
        ? { username: username.trim(), stepToken, totp: totp.trim() }
        : withKey
          ? { apiKey: accountKey.trim(), captcha: captcha! }
          : { username: username.trim(), password, captcha: captcha! };
      unwrap(await api.POST('/api/v1/auth/login', { body }));
      queryClient.setQueryData(SESSION_KEY, await fetchSession());
      navigate(next, { replace: true });
    } catch (err) {
      const step = err instanceof ApiError && err.code === 'TOTP_REQUIRED' ? err.body.stepToken : undefined;
      if (typeof step === 'string') {
        setStepToken(step);
        setTotp('');
      } else {
        // A step that ran out (or a lockout) starts over from the password; a wrong code stays on the code step.
        if (stepToken && !(err instanceof ApiError && /two-factor code/i.test(err.message))) setStepToken(null);
        setError(describeLoginError(err, withKey && !stepToken));
      }
      // A solved challenge is spent by the attempt; the widget fetches a new one.
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
              Sign in to Keyward
            </Title>
            {stepToken ? (
              <>
                <Text size="sm">Password accepted. Enter the 6-digit code your authenticator app shows for Keyward.</Text>
                <TextInput
                  label="Two-factor code"
                  value={totp}
                  onChange={(e) => setTotp(e.currentTarget.value)}
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={6}
                  data-autofocus
                  autoFocus
                  required
                />
              </>
            ) : (
              <Switch label="Sign in with API key" checked={withKey} onChange={(e) => setWithKey(e.currentTarget.checked)} />
            )}
            {stepToken ? null : withKey ? (
              <PasswordInput
                label="Account key"
                value={accountKey}
                onChange={(e) => setAccountKey(e.currentTarget.value)}
                autoComplete="off"
                required
              />
            ) : (
              <>
                <TextInput
                  label="Username"
                  value={username}
                  onChange={(e) => setUsername(e.currentTarget.value)}
                  autoComplete="username"
                  required
                />
                <PasswordInput
                  label="Password"
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                  autoComplete="current-password"
                  required
                />
              </>
            )}
            {!stepToken && <Captcha onSolved={setCaptcha} generation={generation} />}
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
            {stepToken && (
              <Anchor component="button" type="button" size="sm" onClick={() => setStepToken(null)}>
                Start again with the password
              </Anchor>
            )}
            <Text size="sm" c="dimmed">
              No account?{' '}
              <Anchor component={Link} to="/register">
                Register
              </Anchor>{' '}
              (when this server allows it).
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
