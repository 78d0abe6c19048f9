import { useState } from 'react';
import { Button, Group, Modal, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { notifyError, notifySuccess } from '../components/notify';
import { disabledMessageProblem, DISABLED_MESSAGE_MAX, type Script } from './types';

/**
 * The kill switch of one script (contract §13.3). Switching off asks for the message buyers see; switching
 * on is immediate. `label` shows a visible name where no column header gives one (a phone).
 */
export function ScriptSwitch({ script, serviceId, label }: { script: Script; serviceId: string; label?: string }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [message, setMessage] = useState(script.disabledMessage ?? '');
  const problem = disabledMessageProblem(message);
  const enabled = script.enabled !== false;
  const save = useMutation({
    mutationFn: async (body: { enabled: boolean; disabledMessage?: string | null }) =>
      unwrap(
        await api.PUT('/api/v1/vss/api/scripts/{idOrSlug}', {
          headers: serviceHeaders(serviceId),
          params: { path: { idOrSlug: script.id } },
          body,
        }),
      ),
    onSuccess: (_data, body) => {
      void queryClient.invalidateQueries({ queryKey: ['scripts', serviceId] });
      notifySuccess(body.enabled ? `“${script.name}” runs again` : `“${script.name}” is switched off`);
      setAsking(false);
    },
    onError: notifyError,
  });
  return (
    <>
      <Switch
        label={label}
        aria-label={`Enabled: ${script.name}`}
        checked={enabled}
        onChange={(e) => (e.currentTarget.checked ? save.mutate({ enabled: true }) : setAsking(true))}
      />
      {!enabled && script.disabledMessage && (
        <Text size="xs" c="dimmed" maw={220} lineClamp={2} title={script.disabledMessage}>
          {script.disabledMessage}
        </Text>
      )}
      <Modal opened={asking} onClose={() => setAsking(false)} title={`Switch off ${script.name}`} centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!problem) save.mutate({ enabled: false, disabledMessage: message.trim() || null });
          }}
        >
          <Stack>
            <Text size="sm">Buyers who run the loadstring get this message instead of the script. No execution is counted.</Text>
            <TextInput
              label="Message for buyers"
              description={`Optional, at most ${DISABLED_MESSAGE_MAX} characters; empty shows a default sentence`}
              value={message}
              onChange={(e) => setMessage(e.currentTarget.value)}
              error={problem}
              data-autofocus
            />
            {save.isError && (
              <Text c="red" size="sm" role="alert">
                {messageOf(save.error)}
              </Text>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setAsking(false)}>
                Cancel
              </Button>
              <Button type="submit" color="red" loading={save.isPending} disabled={problem !== null}>
                Switch off
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
