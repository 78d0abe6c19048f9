import { Switch } from '@mantine/core';

/**
 * A script's `heartbeat` (contract §18), in plain words: every run keeps a live session, so a ban, a pause or "End
 * session" stops the running script within a minute, and a key's device limit counts it.
 */
export function HeartbeatSwitch({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <Switch
      label="Stop it while it runs"
      description="Each run checks in with the server every 30 seconds or so (a heartbeat). Banning or pausing the key, or ending its session, then stops the running script at once instead of at its next launch. Keys with a device limit always check in."
      checked={checked}
      onChange={(e) => onChange(e.currentTarget.checked)}
    />
  );
}
