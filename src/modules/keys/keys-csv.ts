// The CSV file's shape, shared by the export (keys-export.ts) and the import (keys-import.ts, also run in a worker
// thread, so this file imports nothing).

export const EXPORT_COLUMNS = [
  'key',
  'type',
  'status',
  'hwids',
  'note',
  'isPremium',
  'noHwidValidation',
  'maxHwids',
  'expiresAt',
  'chatId',
  'executions',
  'createdAt',
  'activatedAt',
  'lastUsedAt',
  // Contract §12.1: an afterRedeem generated key's length in days, empty for every other key.
  'durationDays',
] as const;

/**
 * A cell a spreadsheet would run as a formula (one beginning with `=`, `+`, `-`, `@`, a tab or a carriage return) is
 * written with a leading `'`, which spreadsheets read as "text". An HWID is chosen by whoever runs the script, so an
 * export must never hand a seller's spreadsheet a formula. A cell already beginning with `'`s before such a character
 * gets one more, so that the import, which takes exactly one `'` off a cell beginning that way, gives back every
 * value exactly (see unneutralized in keys-import.ts).
 */
export const FORMULA_CELL = /^'*[=+\-@\t\r]/;
export const neutralized = (value: string) => (FORMULA_CELL.test(value) ? `'${value}` : value);

/**
 * A key's HWIDs in one cell, joined by `|` (contract §7.4). An HWID is chosen by whoever runs the script and may hold
 * `|` itself, so `|` and `\` inside an HWID are written `\|` and `\\`; every other HWID is written as it is.
 */
export const joinHwids = (hwids: readonly string[]): string => hwids.map((hwid) => hwid.replace(/[\\|]/g, '\\$&')).join('|');

/** The HWIDs of a cell written by joinHwids. A `\` before anything but `|` or `\` is kept, as older exports wrote it. */
export function splitHwids(cell: string): string[] {
  const hwids: string[] = [];
  let current = '';
  for (let i = 0; i < cell.length; i++) {
    const char = cell[i]!;
    if (char === '\\' && (cell[i + 1] === '|' || cell[i + 1] === '\\')) current += cell[++i];
    else if (char === '|') {
      hwids.push(current);
      current = '';
    } else current += char;
  }
  hwids.push(current);
  return hwids;
}
