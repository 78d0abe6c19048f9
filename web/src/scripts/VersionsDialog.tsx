import { useState } from 'react';
import { Badge, Button, Modal, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { formatSize } from '../components/CodeOrFileInput';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { ErrorState, Loading } from '../components/states';
import type { Script } from './types';

/** The last 20 versions of a script's code, with a Restore (confirmed) on each older one (contract §13.2). */
export function VersionsDialog({ script, serviceId, onClose }: { script: Script | null; serviceId: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [restoring, setRestoring] = useState<number | null>(null);
  const phone = useMediaQuery('(max-width: 30em)') ?? false;
  const versions = useQuery({
    queryKey: ['script-versions', serviceId, script?.id],
    enabled: script !== null,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/vss/api/scripts/{idOrSlug}/versions', {
          headers: serviceHeaders(serviceId),
          params: { path: { idOrSlug: script!.id } },
        }),
      ),
  });
  const restore = useMutation({
    mutationFn: async (version: number) =>
      unwrap(
        await api.POST('/api/v1/vss/api/scripts/{idOrSlug}/versions/{version}/restore', {
          headers: serviceHeaders(serviceId),
          params: { path: { idOrSlug: script!.id, version: String(version) } },
        }),
      ),
    onSuccess: (_data, version) => {
      void queryClient.invalidateQueries({ queryKey: ['script-versions', serviceId] });
      void queryClient.invalidateQueries({ queryKey: ['scripts', serviceId] });
      notifySuccess(`Version ${version} of “${script?.name ?? ''}” is live again`);
      setRestoring(null);
    },
    onError: notifyError,
  });
  const items = versions.data?.items ?? [];
  return (
    <>
      <Modal
        fullScreen={phone}
        opened={script !== null && restoring === null}
        onClose={onClose}
        title={`Versions of ${script?.name ?? ''}`}
        centered
        size="lg"
      >
        <Stack>
          <Text size="sm" c="dimmed">
            The last 20 versions of the code are kept. Restoring one makes it what every buyer gets, at once.
          </Text>
          {versions.isPending ? (
            <Loading label="Loading versions" />
          ) : versions.isError ? (
            <ErrorState error={versions.error} retry={() => void versions.refetch()} />
          ) : (
            <ScrollArea type="auto">
              <Table aria-label="Versions" striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Version</Table.Th>
                    <Table.Th>Size</Table.Th>
                    <Table.Th>Uploaded</Table.Th>
                    {/* On a phone the digest would push Restore out of sight behind a sideways scroll: wide screens only. */}
                    <Table.Th visibleFrom="sm">SHA-256</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((v) => (
                    <Table.Tr key={v.version}>
                      <Table.Td>{v.version}</Table.Td>
                      <Table.Td>{formatSize(v.size)}</Table.Td>
                      <Table.Td>{new Date(v.createdAt).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' })}</Table.Td>
                      <Table.Td visibleFrom="sm">
                        <Text size="xs" ff="monospace" title={v.sha256}>
                          {v.sha256.slice(0, 12)}…
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        {v.current ? (
                          <Badge variant="light" color="green">
                            Live
                          </Badge>
                        ) : (
                          <Button
                            size="compact-xs"
                            variant="light"
                            aria-label={`Restore version ${v.version}`}
                            onClick={() => setRestoring(v.version)}
                          >
                            Restore
                          </Button>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          )}
        </Stack>
      </Modal>
      <ConfirmDialog
        opened={restoring !== null}
        title="Restore version"
        onClose={() => setRestoring(null)}
        busy={restore.isPending}
        onConfirm={() => restoring !== null && restore.mutate(restoring)}
      >
        {restoring !== null ? `Make version ${restoring} of “${script?.name ?? ''}” the code every buyer gets, from now on?` : ''}
      </ConfirmDialog>
    </>
  );
}
