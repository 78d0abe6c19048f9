/**
 * A number a seller typed, checked against the range the server accepts. The form refuses it with a
 * sentence instead of changing it: a count of 0 silently becoming 1 (or 100000 becoming 1000) generated
 * keys nobody asked for (contract §15). Pure: unit-tested.
 */
export interface Range {
  /** The field's label. */
  label: string;
  /** How a sentence names the value when the label alone reads badly ("The free-key cooldown"). */
  subject?: string;
  min: number;
  max: number;
  /** Said after the range: "hours", "days". */
  unit?: string;
}

export function rangeProblem(
  value: number | string | null | undefined,
  { label: fieldLabel, subject, min, max, unit }: Range,
): string | null {
  const label = subject ?? fieldLabel;
  const range = `a whole number from ${min} to ${max}${unit ? ` ${unit}` : ''}`;
  if (value === '' || value === null || value === undefined) return `${label} is empty: enter ${range}.`;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n)) return `${label} must be ${range}.`;
  if (n < min) return `${label} must be at least ${min}${unit ? ` ${unit}` : ''}: ${range}.`;
  if (n > max) return `${label} must be at most ${max}${unit ? ` ${unit}` : ''}: ${range}.`;
  return null;
}

/** The first problem of several fields, or null when every one is in range. */
export const firstProblem = (...problems: Array<string | null>) => problems.find((p) => p !== null) ?? null;
