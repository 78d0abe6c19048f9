import { Button, Code, Group } from '@mantine/core';
import { CopyAction } from './CopyAction';

/**
 * A stored secret (account or service key): hidden until "Reveal", then shown with a copy button; "Regenerate"
 * asks the page to confirm, since the old key dies at once.
 */
export function SecretKeyControls({
  valueLabel,
  value,
  revealing,
  onReveal,
  onRegenerate,
}: {
  /** Accessible name of the shown value, e.g. "Service key value". */
  valueLabel: string;
  value: string | null;
  revealing: boolean;
  onReveal: () => void;
  onRegenerate: () => void;
}) {
  return (
    <>
      {value && (
        <Group gap="xs" mb="xs">
          <Code aria-label={valueLabel}>{value}</Code>
          <CopyAction value={value} label="Copy" size="xs" copiedMessage="Copied to the clipboard" />
        </Group>
      )}
      <Group gap="xs">
        {!value && (
          <Button variant="light" onClick={onReveal} loading={revealing}>
            Reveal
          </Button>
        )}
        <Button variant="light" color="red" onClick={onRegenerate}>
          Regenerate
        </Button>
      </Group>
    </>
  );
}
