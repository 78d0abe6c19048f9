import { Radio, Stack, TagsInput, Text } from '@mantine/core';

/** Which executors a script runs on (contract §29): only those allowed, all but those denied, or (null) any. */
export type ExecutorRule = { allow: string[] } | { deny: string[] } | null;

/** The script record's `executors`, whatever shape the client types give it. */
export const ruleOf = (value: unknown): ExecutorRule =>
  value && typeof value === 'object' && ('allow' in value || 'deny' in value) ? (value as ExecutorRule) : null;

export const MAX_EXECUTOR_NAMES = 50;
// Names buyers commonly report; suggestions only, any name may be typed.
const COMMON = ['Wave', 'Synapse Z', 'Solara', 'Xeno', 'Delta', 'Fluxus', 'Codex', 'Arceus X', 'Krnl', 'Velocity', 'Swift', 'AWP'];

type Mode = 'any' | 'allow' | 'deny';
const modeOf = (rule: ExecutorRule): Mode => (rule === null ? 'any' : 'allow' in rule ? 'allow' : 'deny');
const namesOf = (rule: ExecutorRule) => (rule === null ? [] : 'allow' in rule ? rule.allow : rule.deny);
const make = (mode: Mode, names: string[]): ExecutorRule => (mode === 'any' ? null : mode === 'allow' ? { allow: names } : { deny: names });

/** A sentence when the rule cannot be saved, else null. */
export function executorRuleProblem(rule: ExecutorRule): string | null {
  const names = namesOf(rule);
  if (rule !== null && names.length === 0) return 'Add at least one executor name, or choose “Any executor”.';
  if (names.length > MAX_EXECUTOR_NAMES) return `At most ${MAX_EXECUTOR_NAMES} names; this list has ${names.length}.`;
  const long = names.find((n) => [...n].length > 64);
  return long ? `“${long.slice(0, 20)}…” is longer than 64 characters.` : null;
}

/**
 * The executor rule in plain words. The buyer's executor names itself, so the rule answers honest buyers with a clear
 * sentence ("This script does not support …") before they spend a launch; it is not a lock.
 */
export function ExecutorRuleInput({ value, onChange }: { value: ExecutorRule; onChange: (rule: ExecutorRule) => void }) {
  // The names typed stay when the choice moves between "only" and "all except".
  const mode = modeOf(value);
  const names = namesOf(value);
  const problem = executorRuleProblem(value);
  return (
    <Stack gap={6}>
      <Radio.Group
        label="Executors"
        description="Which executors this script runs on. A buyer on another one is told so before anything is used up."
        value={mode}
        onChange={(m) => onChange(make(m as Mode, names))}
      >
        <Stack gap={6} mt={6}>
          <Radio value="any" label="Any executor" />
          <Radio value="allow" label="Only these executors" />
          <Radio value="deny" label="Every executor except these" />
        </Stack>
      </Radio.Group>
      {mode !== 'any' && (
        <TagsInput
          aria-label={mode === 'allow' ? 'Executors it runs on' : 'Executors it does not run on'}
          placeholder={names.length === 0 ? 'Type a name, press Enter' : undefined}
          data={COMMON}
          value={names}
          onChange={(next) => onChange(make(mode, next.map((n) => n.trim()).filter(Boolean)))}
          maxTags={MAX_EXECUTOR_NAMES}
          clearable
          error={problem}
        />
      )}
      {mode !== 'any' && (
        <Text size="xs" c="dimmed">
          Versions are ignored and case does not matter: “Wave” also covers “wave 2.1”. Executors report their own name, so a buyer could
          claim another one: this helps honest buyers, it does not lock anyone out.
        </Text>
      )}
    </Stack>
  );
}
