import { Button, Code, CopyButton, Group } from '@mantine/core';

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
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
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
