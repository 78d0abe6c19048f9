import { Button, CopyButton, Tooltip, type ButtonProps } from '@mantine/core';
import { notifySuccess } from './notify';

/**
 * A copy button whose accessible name never changes (browser tests and screen readers find it by
 * name): "Copied" shows in a tooltip next to it and in a toast.
 */
export function CopyAction({
  value,
  label,
  copiedMessage,
  ariaLabel,
  ...button
}: {
  value: string;
  label: string;
  copiedMessage: string;
  ariaLabel?: string;
} & Pick<ButtonProps, 'size' | 'variant' | 'w'>) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Tooltip label="Copied" opened={copied} withArrow>
          <Button
            variant="light"
            {...button}
            color={copied ? 'teal' : undefined}
            aria-label={ariaLabel}
            onClick={() => {
              copy();
              notifySuccess(copiedMessage);
            }}
          >
            {label}
          </Button>
        </Tooltip>
      )}
    </CopyButton>
  );
}
