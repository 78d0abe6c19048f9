import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, Stack } from '@mantine/core';
import { RangeInput } from '../components/RangeInput';
import { rangeProblem } from '../lib/numbers';

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
  const [tried, setTried] = useState(false);
  const range = { label: 'Days', min: 1, max };
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          // -10 is refused here with a sentence: it must never reach the server as a silent +1.
          if (rangeProblem(days, range)) return;
          onSubmit(Number(days));
        }}
      >
        <Stack>
          {children}
          <RangeInput range={range} value={days} onChange={setDays} showEmpty={tried} required data-autofocus />
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
