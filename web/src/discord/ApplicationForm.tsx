import { useState } from 'react';
import { Button, Group, PasswordInput, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { messageOf } from '../api/client';
import { CopyAction } from '../components/CopyAction';
import { MONO_INPUT } from '../components/monoInput';
import { Section } from '../components/Section';
import { DISCORD_ID, interactionsUrl } from './steps';
import { useSaveSettings, type Settings, type SettingsChange } from './queries';

const PUBLIC_KEY = /^[0-9a-fA-F]{64}$/;

/**
 * The three things copied from Discord's developer portal (contract §24.1). The bot token is write-only: shown only
 * as set, replaced by typing a new one. Each field is checked here with a sentence before anything is sent.
 */
export function ApplicationForm({ serviceId, identifier, settings }: { serviceId: string; identifier: string; settings: Settings }) {
  const [applicationId, setApplicationId] = useState(settings.chatApplicationId ?? '');
  const [publicKey, setPublicKey] = useState(settings.chatInteractionsPublicKey ?? '');
  const [token, setToken] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const save = useSaveSettings(serviceId, 'Discord application saved', () => setToken(''));
  const removeToken = useSaveSettings(serviceId, 'Bot token removed');
  const endpoint = interactionsUrl(window.location.origin, identifier);
  const botTokenSet = settings.chatBotToken !== null;

  const submit = () => {
    const app = applicationId.trim();
    const key = publicKey.trim();
    if (app && !DISCORD_ID.test(app)) {
      return setFormError('The application id is 17 to 20 digits: copy it from General Information → Application ID.');
    }
    if (key && !PUBLIC_KEY.test(key)) {
      return setFormError('The public key is 64 letters and digits: copy it from General Information → Public Key.');
    }
    setFormError(null);
    const body: SettingsChange = { chatApplicationId: app || null, chatInteractionsPublicKey: key || null };
    if (token.trim()) body.chatBotToken = token.trim();
    save.mutate(body);
  };
  const error = formError ?? (save.error ? messageOf(save.error) : null);

  return (
    <Section title="Discord application">
      <Stack maw={640}>
        <Text size="sm">
          Open{' '}
          <a href="https://discord.com/developers/applications" target="_blank" rel="noreferrer">
            Discord’s developer portal
          </a>
          , press New Application (or open yours), and copy these three values.
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack>
            <TextInput
              label="Application id"
              description="General Information → Application ID (17 to 20 digits)"
              inputMode="numeric"
              autoComplete="off"
              value={applicationId}
              onChange={(e) => setApplicationId(e.currentTarget.value)}
              styles={MONO_INPUT}
            />
            <Textarea
              label="Public key"
              description="General Information → Public Key (64 letters and digits)"
              autoComplete="off"
              autosize
              value={publicKey}
              onChange={(e) => setPublicKey(e.currentTarget.value)}
              styles={MONO_INPUT}
            />
            <PasswordInput
              label="Bot token"
              description={
                botTokenSet
                  ? 'Saved; type a new one only to replace it.'
                  : 'Bot → Reset Token, then Copy. Keep it secret: it acts as your bot.'
              }
              autoComplete="off"
              value={token}
              onChange={(e) => setToken(e.currentTarget.value)}
            />
            {error && (
              <Text c="red" size="sm" role="alert">
                {error}
              </Text>
            )}
            <Group gap="xs" wrap="wrap">
              <Button type="submit" loading={save.isPending}>
                Save application
              </Button>
              {botTokenSet && (
                <Button
                  variant="subtle"
                  color="red"
                  loading={removeToken.isPending}
                  onClick={() => removeToken.mutate({ chatBotToken: null })}
                >
                  Remove bot token
                </Button>
              )}
            </Group>
          </Stack>
        </form>
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            Interactions Endpoint URL
          </Text>
          <Text size="sm">
            After saving, paste this into General Information → Interactions Endpoint URL and press Save Changes. Discord checks it at once.
          </Text>
          <Group gap="xs" wrap="wrap">
            <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }} aria-label="Interactions Endpoint URL">
              {endpoint}
            </Text>
            <CopyAction
              size="xs"
              value={endpoint}
              label="Copy"
              ariaLabel="Copy Interactions Endpoint URL"
              copiedMessage="Interactions Endpoint URL copied"
            />
          </Group>
        </Stack>
      </Stack>
    </Section>
  );
}
