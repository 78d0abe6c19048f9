import { useEffect, useState } from 'react';
import { Button, Group, Modal, NumberInput, Stack, Text, TextInput } from '@mantine/core';

/**
 * Ban with a reason and an end (contract §19, §21): the buyer sees the reason when the key is refused; with days the
 * ban lifts by itself, without it the ban is permanent. Its button is "Confirm", like every destructive action.
 */
export function BanDialog({
  opened,
  what,
  busy,
  onClose,
  onConfirm,
}: {
  opened: boolean;
  what: string;
  busy: boolean;
  onClose: () => void;
  onConfirm: (ban: { reason?: string; days?: number }) => void;
}) {
  const [reason, setReason] = useState('');
  const [days, setDays] = useState<string | number>('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (opened) {
      setReason('');
      setDays('');
      setError(null);
    }
  }, [opened]);
  return (
    <Modal opened={opened} onClose={onClose} title="Ban" centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const n = days === '' ? undefined : Number(days);
          if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > 3650)) {
            setError('Enter a whole number of days from 1 to 3650, or leave it empty for a permanent ban');
            return;
          }
          onConfirm({ ...(reason.trim() ? { reason: reason.trim() } : {}), ...(n !== undefined ? { days: n } : {}) });
        }}
      >
        <Stack>
          <Text size="sm">This will ban {what}.</Text>
          <TextInput
            label="Reason"
            description="Shown to the buyer when the key is refused"
            maxLength={256}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
          />
          <NumberInput
            label="Ban for (days)"
            description="Leave empty to ban for good"
            min={1}
            max={3650}
            allowDecimal={false}
            clampBehavior="none"
            value={days}
            onChange={(value) => {
              setDays(value);
              setError(null);
            }}
            error={error}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color="red" loading={busy}>
              Confirm
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
