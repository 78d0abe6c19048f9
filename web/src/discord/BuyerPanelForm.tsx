import { useState } from 'react';
import { Button, ColorInput, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { MONO_INPUT } from '../components/monoInput';
import { Section } from '../components/Section';
import { notifySuccess } from '../components/notify';
import { DISCORD_ID } from './steps';

const COLOR = /^#[0-9a-fA-F]{6}$/;
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4000;

/**
 * Posts the buyer panel (contract §24.2): one message with Redeem key, Get script, Reset HWID, Get role and My key.
 * Posting again makes another panel; the old one keeps working.
 */
export function BuyerPanelForm({ serviceId, ready }: { serviceId: string; ready: boolean }) {
  const [channelId, setChannelId] = useState('');
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [color, setColor] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const post = useMutation({
    mutationFn: async (body: { channelId: string; title?: string; description?: string; color?: number }) =>
      unwrap(await api.POST('/api/v1/keys/api/chat/panel', { headers: serviceHeaders(serviceId), body })),
    onSuccess: () => notifySuccess('Buyer panel posted: look in the channel'),
  });
  const submit = () => {
    const channel = channelId.trim();
    if (!DISCORD_ID.test(channel)) {
      return setFormError('The channel id is 17 to 20 digits: right-click the channel and choose Copy Channel ID.');
    }
    if (color && !COLOR.test(color)) return setFormError('The color is # and six hex digits, like #5865f2; or leave it empty.');
    setFormError(null);
    post.mutate({
      channelId: channel,
      ...(title.trim() && { title: title.trim() }),
      ...(description.trim() && { description: description.trim() }),
      // Discord's embed colour is a number: #5865f2 → 0x5865f2.
      ...(color && { color: parseInt(color.slice(1), 16) }),
    });
  };
  const error = formError ?? (post.error ? messageOf(post.error) : null);
  return (
    <Section title="Buyer panel">
      <Stack maw={640}>
        <Text size="sm">
          A message with five buttons: Redeem key, Get script, Reset HWID, Get role and My key. Buyers click them instead of typing
          commands, and only they see the answers. Post it in a channel buyers can read but not write in.
        </Text>
        {!ready && (
          <Text size="sm" c="orange.8">
            Finish the checklist above first (application, server and bot), or Discord refuses the message.
          </Text>
        )}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Channel id"
              description="Right-click the channel → Copy Channel ID"
              inputMode="numeric"
              value={channelId}
              onChange={(e) => setChannelId(e.currentTarget.value)}
              styles={MONO_INPUT}
              maw={360}
              required
            />
            <TextInput
              label="Title"
              description="Optional; Keyward writes one when empty"
              maxLength={TITLE_MAX}
              value={title}
              onChange={(e) => setTitle(e.currentTarget.value)}
            />
            <Textarea
              label="Description"
              description="Optional: tell buyers what the buttons do, or where to buy a key"
              maxLength={DESCRIPTION_MAX}
              autosize
              minRows={2}
              value={description}
              onChange={(e) => setDescription(e.currentTarget.value)}
            />
            <ColorInput
              label="Color"
              description="Optional: the stripe beside the message"
              format="hex"
              value={color}
              onChange={setColor}
              maw={240}
            />
            {error && (
              <Text c="red" size="sm" role="alert">
                {error}
              </Text>
            )}
            <Button type="submit" loading={post.isPending} w="fit-content">
              Post the buyer panel
            </Button>
          </Stack>
        </form>
      </Stack>
    </Section>
  );
}
