import { useState } from 'react';
import { Button, Stack, Text, TextInput } from '@mantine/core';
import { messageOf } from '../api/client';
import { MONO_INPUT } from '../components/monoInput';
import { Section } from '../components/Section';
import { DISCORD_ID } from './steps';
import { useSaveSettings } from './queries';

/** Where staff notices go (contract §24.4): HWID resets with their fingerprint, bans, whitelists, mass actions. */
export function LogChannelForm({ serviceId, logChannelId }: { serviceId: string; logChannelId: string | null }) {
  const [channel, setChannel] = useState(logChannelId ?? '');
  const [formError, setFormError] = useState<string | null>(null);
  const save = useSaveSettings(serviceId, 'Staff log channel saved');
  const error = formError ?? (save.error ? messageOf(save.error) : null);
  return (
    <Section title="Staff log channel">
      <Stack maw={640}>
        <Text size="sm">
          Keyward posts here when a buyer resets their HWID (with a fingerprint of where it came from, so one key shared by many people
          stands out), and on bans, unbans, whitelists and mass actions. Use a channel only your staff can read.
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const value = channel.trim();
            if (value && !DISCORD_ID.test(value)) {
              return setFormError('The channel id is 17 to 20 digits: right-click the channel and choose Copy Channel ID.');
            }
            setFormError(null);
            save.mutate({ chatLogChannelId: value || null });
          }}
        >
          <Stack gap="xs">
            <TextInput
              label="Log channel id"
              description="Right-click the channel → Copy Channel ID; empty turns notices off"
              inputMode="numeric"
              value={channel}
              onChange={(e) => setChannel(e.currentTarget.value)}
              styles={MONO_INPUT}
              maw={360}
              error={formError ?? undefined}
            />
            <Button type="submit" loading={save.isPending} w="fit-content">
              Save log channel
            </Button>
          </Stack>
          {!formError && error && (
            <Text c="red" size="sm" role="alert" mt="xs">
              {error}
            </Text>
          )}
        </form>
      </Stack>
    </Section>
  );
}
