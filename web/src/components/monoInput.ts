/**
 * Monospace for what is typed into a field, not its label and hint: Mantine's `ff` on an input sets the whole
 * wrapper, which made labels such as "Discord application public key" look like code.
 */
export const MONO_INPUT = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };
