import { useEffect, useState } from 'react';
import { Button, Group, Modal, NativeSelect, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useServices } from '../services/queries';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { describeBulkResult } from '../lib/outcomes';
import { DaysDialog } from './DaysDialog';
import { BanDialog } from './BanDialog';
import type { BulkAction } from './records';

/** An action waiting for its dialog (days, note or a confirmation), on one row's key or the selection. */
export type Pending = { action: BulkAction; keys: string[] } | null;

const ACTION_TEXT: Record<Exclude<BulkAction, 'extend' | 'setNote' | 'move'>, { title: string; verb: string }> = {
  delete: { title: 'Delete', verb: 'permanently delete' },
  ban: { title: 'Ban', verb: 'ban' },
  resetHwid: { title: 'Reset HWID', verb: 'clear every HWID of' },
  pause: { title: 'Pause', verb: 'pause' },
  activate: { title: 'Activate', verb: 'activate' },
};

export const describeKeys = (keys: string[]) => (keys.length === 1 ? `key ${keys[0]}` : `${keys.length} keys`);

export function useBulk(serviceId: string, onDone?: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { action: BulkAction; keys: string[]; days?: number; note?: string; toService?: string; reason?: string }) =>
      unwrap(await api.POST('/api/v1/keys/api/keys/bulk', { headers: serviceHeaders(serviceId), body: input })),
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      notifySuccess(describeBulkResult(result));
      onDone?.();
    },
    onError: notifyError,
  });
}

/** The actions for the ticked keys (contract §9: the same actions as a row, for the selection). */
export function BulkBar({
  selection,
  setPending,
  onClear,
  manage,
}: {
  selection: string[];
  setPending: (pending: Pending) => void;
  onClear: () => void;
  /** The caller's role may change keys' terms (keys.manage): Extend, Move and Delete; support work is for every role shown the bar. */
  manage: boolean;
}) {
  if (selection.length === 0) return null;
  return (
    <Paper withBorder p="xs" role="region" aria-label="Selection actions">
      <Group gap="xs" wrap="wrap">
        <Text size="sm" fw={600}>
          {selection.length} selected
        </Text>
        <Button size="xs" variant="light" onClick={() => setPending({ action: 'resetHwid', keys: selection })}>
          Reset HWID
        </Button>
        {manage && (
          <Button size="xs" variant="light" onClick={() => setPending({ action: 'extend', keys: selection })}>
            Extend
          </Button>
        )}
        <Button size="xs" variant="light" onClick={() => setPending({ action: 'pause', keys: selection })}>
          Pause
        </Button>
        <Button size="xs" variant="light" onClick={() => setPending({ action: 'activate', keys: selection })}>
          Activate
        </Button>
        <Button size="xs" variant="light" onClick={() => setPending({ action: 'setNote', keys: selection })}>
          Set note
        </Button>
        {manage && (
          <Button size="xs" variant="light" onClick={() => setPending({ action: 'move', keys: selection })}>
            Move to service
          </Button>
        )}
        <Button size="xs" variant="light" color="orange" onClick={() => setPending({ action: 'ban', keys: selection })}>
          Ban
        </Button>
        {manage && (
          <Button size="xs" variant="light" color="red" onClick={() => setPending({ action: 'delete', keys: selection })}>
            Delete
          </Button>
        )}
        <Button size="xs" variant="subtle" onClick={onClear}>
          Clear selection
        </Button>
      </Group>
    </Paper>
  );
}

/** The dialogs a pending action opens: days for Extend, a note for Set note, "Confirm" for the rest. */
export function BulkDialogs({
  serviceId,
  pending,
  setPending,
  onDone,
}: {
  serviceId: string;
  pending: Pending;
  setPending: (pending: Pending) => void;
  onDone: () => void;
}) {
  const [note, setNote] = useState('');
  const [toService, setToService] = useState('');
  const services = useServices();
  const others = (services.data ?? []).filter((s) => s.id !== serviceId);
  // Each "Set note" starts from an empty box, not the note typed for the previous selection.
  useEffect(() => {
    if (pending?.action === 'setNote') setNote('');
  }, [pending]);
  const bulk = useBulk(serviceId, () => {
    setPending(null);
    onDone();
  });
  const confirmText =
    pending && pending.action !== 'extend' && pending.action !== 'setNote' && pending.action !== 'move' && pending.action !== 'ban'
      ? ACTION_TEXT[pending.action]
      : null;
  return (
    <>
      <DaysDialog
        opened={pending?.action === 'extend'}
        title={pending ? `Extend ${describeKeys(pending.keys)}` : 'Extend'}
        max={3650}
        submitLabel="Extend"
        onSubmit={(days) => pending && bulk.mutate({ action: 'extend', keys: pending.keys, days })}
        onClose={() => setPending(null)}
        busy={bulk.isPending}
      />
      <Modal opened={pending?.action === 'setNote'} onClose={() => setPending(null)} title="Set note" centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (pending) bulk.mutate({ action: 'setNote', keys: pending.keys, note });
          }}
        >
          <Stack>
            <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} data-autofocus />
            <Group justify="flex-end">
              <Button type="submit" loading={bulk.isPending}>
                Save
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <Modal
        opened={pending?.action === 'move'}
        onClose={() => setPending(null)}
        title={pending ? `Move ${describeKeys(pending.keys)}` : 'Move'}
        centered
      >
        {others.length === 0 ? (
          <Text size="sm">You have no other service to move keys to. Create one on the Services page first.</Text>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              const target = toService || others[0]!.id;
              if (pending) bulk.mutate({ action: 'move', keys: pending.keys, toService: target });
            }}
          >
            <Stack>
              <Text size="sm">
                The keys leave this service with their HWIDs, notes and expiry; buyers keep using them with the other service's scripts.
              </Text>
              <NativeSelect
                label="To service"
                value={toService || others[0]!.id}
                onChange={(e) => setToService(e.currentTarget.value)}
                data={others.map((s) => ({ value: s.id, label: s.name }))}
              />
              <Group justify="flex-end">
                <Button type="submit" loading={bulk.isPending}>
                  Move
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Modal>
      <BanDialog
        opened={pending?.action === 'ban'}
        what={pending ? describeKeys(pending.keys) : ''}
        busy={bulk.isPending}
        onClose={() => setPending(null)}
        onConfirm={(ban) => pending && bulk.mutate({ action: 'ban', keys: pending.keys, ...ban })}
      />
      <ConfirmDialog
        opened={confirmText !== null}
        title={confirmText?.title ?? ''}
        onClose={() => setPending(null)}
        busy={bulk.isPending}
        onConfirm={() => pending && bulk.mutate({ action: pending.action, keys: pending.keys })}
      >
        {pending && confirmText ? `This will ${confirmText.verb} ${describeKeys(pending.keys)}.` : ''}
      </ConfirmDialog>
    </>
  );
}
