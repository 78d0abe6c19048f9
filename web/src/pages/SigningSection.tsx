import { useState } from 'react';
import { Button, Code, Group, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyAction } from '../components/CopyAction';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { ErrorState, Loading } from '../components/states';

/**
 * "Signed answers" on the service settings page (contract §13.1): the public key a loader sets as
 * api.public_key, a copy button, and a Rotate button behind a confirmation (old loaders then refuse answers).
 */
export function SigningSection({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const [confirmRotate, setConfirmRotate] = useState(false);
  const key = useQuery({
    queryKey: ['signing-key', serviceId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/public/services/{service}/signing-key', { params: { path: { service: serviceId } } })),
  });
  const rotate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/keys/api/signing-key/rotate', { headers: serviceHeaders(serviceId) })),
    onSuccess: (data) => {
      queryClient.setQueryData(['signing-key', serviceId], data);
      setConfirmRotate(false);
      notifySuccess('Signing key rotated: put the new public key in your loader');
    },
    onError: notifyError,
  });

  return (
    <Section title="Signed answers">
      {key.isPending ? (
        <Loading label="Loading the public key" />
      ) : key.isError ? (
        <ErrorState error={key.error} retry={() => void key.refetch()} />
      ) : (
        <Stack>
          <Text size="sm">
            Set this public key as <Code>api.public_key</Code> in your loader: the Lua library then refuses any key-check answer this server
            did not sign (a spoofed or replayed “valid”) as <Code>SIGNATURE_INVALID</Code>. The "Signed checks" page of the Keyward
            documentation shows the loader lines.
          </Text>
          <Code block aria-label="Public signing key" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {key.data.publicKey}
          </Code>
          <Group gap="xs">
            <CopyAction value={key.data.publicKey} label="Copy public key" copiedMessage="Public key copied" />
            <Button color="red" variant="light" onClick={() => setConfirmRotate(true)}>
              Rotate
            </Button>
          </Group>
        </Stack>
      )}
      <ConfirmDialog
        opened={confirmRotate}
        title="Rotate signing key"
        onClose={() => setConfirmRotate(false)}
        busy={rotate.isPending}
        onConfirm={() => rotate.mutate()}
      >
        A new key pair replaces the current one at once. Loaders that still hold the old public key answer SIGNATURE_INVALID for every key
        until you ship the new one.
      </ConfirmDialog>
    </Section>
  );
}
