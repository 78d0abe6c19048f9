/**
 * The words a seller reads for the API's enum values. The API keeps its codes (scripts and integrations match on
 * them); the dashboard never shows one raw, since "NONE" or "KEY_HWID_LOCKED" reads as a fault, not an answer.
 * An unknown value (a newer server) is shown as it comes rather than hidden.
 */

const OBFUSCATION_LABELS: Record<string, string> = { NONE: 'None', IB1: 'IB1', LURAPH: 'Luraph', WYNFUSCATOR: 'Wynfuscator' };

/** The obfuscation choices, in the order the upload dialog offers them. */
export const OBFUSCATION = Object.entries(OBFUSCATION_LABELS).map(([value, label]) => ({ value, label }));

export const obfuscationLabel = (value: string) => OBFUSCATION_LABELS[value] ?? value;

const SCRIPT_STATUS: Record<string, string> = { ready: 'Ready', processing: 'Obfuscating…', failed: 'Failed' };
export const scriptStatusLabel = (value: string) => SCRIPT_STATUS[value] ?? value;

const OUTBOX_STATUS: Record<string, string> = { pending: 'Waiting', sending: 'Sending', delivered: 'Sent', failed: 'Gave up' };
export const outboxStatusLabel = (value: string) => OUTBOX_STATUS[value] ?? value;

/** A key's own status (the edit form's choices): "active" alone would read like "redeemed". */
export const KEY_STATUS_OPTIONS = [
  { value: 'active', label: 'Active (works)' },
  { value: 'paused', label: 'Paused' },
  { value: 'banned', label: 'Banned' },
];

export const ROLE_OPTIONS = [
  { value: 'user', label: 'Seller' },
  { value: 'moderator', label: 'Moderator' },
  { value: 'admin', label: 'Admin' },
];
export const roleLabel = (value: string) => ROLE_OPTIONS.find((o) => o.value === value)?.label ?? value;

const VERDICTS: Record<string, string> = {
  KEY_VALID: 'Valid key',
  KEYLESS: 'Keyless HWID (no key needed)',
  HWID_REQUIRED: 'No HWID sent',
  HWID_BLACKLISTED: 'Blacklisted HWID',
  KEY_INCORRECT: 'Wrong or unknown key',
  KEY_BANNED: 'Banned key',
  KEY_PAUSED: 'Paused key',
  KEY_EXPIRED: 'Expired key',
  KEY_HWID_LOCKED: 'Key used on another HWID',
};
export const verdictLabel = (code: string) => VERDICTS[code] ?? code;

/** The event webhook names (contract §12.4) as sentences. */
export const EVENTS = [
  { name: 'key.redeemed', label: 'A key is redeemed' },
  { name: 'key.banned', label: 'A key is banned' },
  { name: 'key.deleted', label: 'A key is deleted' },
  { name: 'key.hwidReset', label: 'A key’s HWID is reset' },
  { name: 'keySystem.keyIssued', label: 'The key system issues a key' },
  { name: 'order.delivered', label: 'A shop order is delivered' },
];
export const eventLabel = (name: string) => EVENTS.find((e) => e.name === name)?.label ?? name;
