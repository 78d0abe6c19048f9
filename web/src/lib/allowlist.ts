/**
 * The IP allowlist rules of the server (src/lib/ip.ts isAllowlistEntry, services.service.ts), run in
 * the page so the editor names the wrong entry before saving: a dotted IPv4 address a.b.c.d or a CIDR
 * range a.b.c.d/n (n 0–32), decimal octets 0–255 without leading zeros, at most 100 entries.
 */
const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const ENTRY = new RegExp(`^${OCTET}(\\.${OCTET}){3}(/(3[0-2]|[12]?\\d))?$`);

export const MAX_ALLOWLIST_ENTRIES = 100;

export const isAllowlistEntry = (entry: string): boolean => ENTRY.test(entry);

/** The editor's text as the entries sent: split on whitespace and commas, blanks dropped. */
export const parseAllowlist = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);

export interface AllowlistProblem {
  /** 0-based position among the parsed entries. */
  index: number;
  entry: string;
  message: string;
}

/** Why an entry would be refused, or null when the server takes it. */
export function allowlistEntryProblem(entry: string): string | null {
  if (isAllowlistEntry(entry)) return null;
  if (entry.includes(':')) return 'IPv6 is not supported: use an IPv4 address or range';
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined) return 'has more than one "/"';
  if (bits !== undefined && !/^(3[0-2]|[12]?\d)$/.test(bits)) return `prefix length "/${bits}" must be a whole number from 0 to 32`;
  const parts = address!.split('.');
  if (parts.length !== 4) return 'must have four numbers separated by dots (a.b.c.d)';
  const bad = parts.find((part) => !/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(part));
  if (bad !== undefined) return `"${bad}" is not a number from 0 to 255 (no leading zeros)`;
  return 'is not an IPv4 address (a.b.c.d) or CIDR range (a.b.c.d/n)';
}

/** Every refused entry, plus a problem when there are too many; empty when the list can be saved. */
export function validateAllowlist(entries: readonly string[]): AllowlistProblem[] {
  const problems: AllowlistProblem[] = [];
  entries.forEach((entry, index) => {
    const message = allowlistEntryProblem(entry);
    if (message) problems.push({ index, entry, message });
  });
  if (entries.length > MAX_ALLOWLIST_ENTRIES) {
    problems.push({ index: -1, entry: '', message: `${entries.length} entries: the allowlist holds at most ${MAX_ALLOWLIST_ENTRIES}` });
  }
  return problems;
}
