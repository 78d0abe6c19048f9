/** The row columns an edit can change, under the names of the edit (and of the audit entry). */
const FIELDS = [
  'note',
  'isPremium',
  'noHwidValidation',
  'status',
  'chatId',
  'maxHwids',
  'expiresAt',
  'durationDays',
  'banReason',
  'banExpiresAt',
] as const;
type Field = (typeof FIELDS)[number];
type Row = Partial<Record<Field, unknown>> & { hwids?: string[] };

const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null) || String(a) === String(b);

/**
 * The audit entry of a key edit (contract §22): only the fields whose stored value changed, with what was asked.
 * The dashboard's editor sends every field of its form, so the request alone would list all of them for a note.
 */
export function keyEditDetails(type: 'active' | 'generated', before: Row, after: Row, edit: { hwid?: string | null; days?: number }) {
  const details: Record<string, unknown> = { type };
  for (const field of FIELDS) {
    if (same(before[field], after[field])) continue;
    details[field] =
      field === 'durationDays' ? (edit.days ?? after[field]) : ((edit as Record<string, unknown>)[field] ?? after[field] ?? null);
  }
  if (before.hwids && after.hwids && before.hwids.join('\n') !== after.hwids.join('\n')) details.hwid = edit.hwid ?? null;
  return details;
}
