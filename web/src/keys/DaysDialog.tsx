import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, NumberInput, Stack } from '@mantine/core';

/** A number of days to add (extend, compensate). */
export function DaysDialog({
  opened,
  title,
  max,
  submitLabel,
  onSubmit,
  onClose,
  busy,
  children,
}: {
  opened: boolean;
  title: string;
  max: number;
  submitLabel: string;
  onSubmit: (days: number) => void;
  onClose: () => void;
  busy: boolean;
  children?: ReactNode;
}) {
  const [days, setDays] = useState<number | string>(7);
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit(Number(days));
        }}
      >
        <Stack>
          {children}
          <NumberInput label="Days" min={1} max={max} value={days} onChange={setDays} required allowDecimal={false} data-autofocus />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
