// What the seller pasted or chose, recognised without asking (contract §15): a Keyward export (CSV or JSON),
// Luarmor's users as an array, or Luarmor's answer object holding them under `users`. Pure: unit-tested.

export type ImportFormat = 'keyward-csv' | 'keyward-json' | 'luarmor';

export type Detected = { format: ImportFormat; data: string | unknown[]; records: number; label: string } | { error: string };

export const FORMAT_LABELS: Record<ImportFormat, string> = {
  'keyward-csv': 'Keyward export (CSV)',
  'keyward-json': 'Keyward export (JSON)',
  luarmor: 'Luarmor users (JSON)',
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function fromArray(records: unknown[], forced?: ImportFormat): Detected {
  if (records.length === 0) return { error: 'The list holds no records.' };
  const first = records[0];
  if (!isRecord(first)) return { error: 'Each record must be a JSON object.' };
  const format: ImportFormat | null = forced ?? ('user_key' in first ? 'luarmor' : 'key' in first ? 'keyward-json' : null);
  if (!format) return { error: 'The records have neither "key" (a Keyward export) nor "user_key" (Luarmor users).' };
  return { format, data: records, records: records.length, label: FORMAT_LABELS[format] };
}

/** Recognises the text; `forced` skips the guess (the seller picked a format) but still parses. */
export function detectImport(text: string, forced?: ImportFormat): Detected {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return { error: 'Paste the export or choose a file first.' };
  if (forced === 'keyward-csv' || (!forced && !/^[[{]/.test(trimmed))) {
    const header = trimmed.split(/\r?\n/, 1)[0]!.toLowerCase();
    if (!header.startsWith('key,')) {
      return { error: 'This is not a Keyward CSV export (its first line must be the header starting with "key,"), nor JSON.' };
    }
    const lines = trimmed.split(/\r?\n/).filter((line) => line.trim() !== '').length - 1;
    return { format: 'keyward-csv', data: text, records: lines, label: FORMAT_LABELS['keyward-csv'] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return { error: 'This is neither valid JSON nor a Keyward CSV export.' };
  }
  if (Array.isArray(parsed)) return fromArray(parsed, forced);
  // Luarmor's API answers { success, users: [...] }: the users are what is imported.
  if (isRecord(parsed) && Array.isArray(parsed.users)) return fromArray(parsed.users, forced ?? 'luarmor');
  return { error: 'The JSON must be a list of records, or an object holding them under "users".' };
}
