import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';

/** Every destructive action goes through this; its button is named "Confirm" (contract §9). */
export function ConfirmDialog({
  opened,
  title,
  children,
  onConfirm,
  onClose,
  busy = false,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  onConfirm: () => void;
  onClose: () => void;
  busy?: boolean;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Stack>
        <Text size="sm">{children}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" onClick={onConfirm} loading={busy} data-autofocus>
            Confirm
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
