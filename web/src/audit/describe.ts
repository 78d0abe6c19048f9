// The audit log as sentences a seller reads (contract §15): what happened, to which key or HWID, and by whom.
// Pure: unit-tested.

export interface AuditLike {
  action: string;
  /** `username`: the acting account's (contract §17), so a team member's changes name them. */
  actor: { kind: string; accountId: string | null; username?: string | null };
  target: string | null;
  details: Record<string, unknown> | null;
}

/** A key as "ABCD…1234": enough to recognise it, short enough for a sentence. Short strings stay whole. */
export const shortKey = (key: string) => (key.length > 12 ? `${key.slice(0, 4)}…${key.slice(-4)}` : key);

const n = (count: unknown, one: string, many = `${one}s`) => `${Number(count ?? 0)} ${Number(count) === 1 ? one : many}`;
const str = (value: unknown) => (typeof value === 'string' ? value : '');

const BULK: Record<string, string> = {
  delete: 'Deleted',
  ban: 'Banned',
  pause: 'Paused',
  activate: 'Activated',
  resetHwid: 'Reset the HWID of',
  extend: 'Extended',
  setNote: 'Set the note of',
  move: 'Moved',
};

const FIELD_WORDS: Record<string, string> = {
  note: 'note',
  hwid: 'HWID',
  isPremium: 'premium',
  noHwidValidation: 'HWID check',
  status: 'status',
  expiresAt: 'expiry',
  chatId: 'Discord user',
  maxHwids: 'max HWIDs',
  webhookUrl: 'webhook',
  webhookEnabled: 'webhook switch',
  hwidResetCooldownFreeHours: 'free cooldown',
  hwidResetCooldownPremiumHours: 'premium cooldown',
  chatInteractionsPublicKey: 'Discord public key',
  pageTitle: 'page title',
  accentColor: 'accent colour',
};

const changed = (details: Record<string, unknown> | null, skip: string[] = []) => {
  const names = Object.keys(details ?? {})
    .filter((k) => !skip.includes(k))
    .map((k) => FIELD_WORDS[k] ?? k);
  return names.length ? ` (${names.join(', ')})` : '';
};

/** One sentence for the entry, naming the key, HWID or script it touched. */
export function describeAudit(entry: AuditLike): string {
  const d = entry.details ?? {};
  const target = entry.target ?? '';
  const key = target ? `key ${shortKey(target)}` : 'a key';
  switch (entry.action) {
    case 'key.generate':
      return `Generated ${n(d.count, 'key')}${target ? ` (${shortKey(target)})` : ''}`;
    case 'key.update':
      return `Edited ${key}${changed(d)}`;
    case 'key.delete':
      return `Deleted ${key}`;
    case 'key.extend':
      return `Extended ${key} by ${n(d.days, 'day')}`;
    case 'key.resetHwid':
      return `Reset the HWID of ${key}`;
    case 'keys.bulk': {
      const verb = BULK[str(d.action)] ?? `Changed (${str(d.action)})`;
      const what = target ? key : n(d.updated, 'key');
      const extra = str(d.action) === 'extend' && d.days !== undefined ? ` by ${n(d.days, 'day')}` : '';
      const skipped = Number(d.skipped ?? 0) > 0 ? `; ${n(d.skipped, 'key')} left as they were` : '';
      return `${verb} ${what}${extra}${skipped}`;
    }
    case 'keys.import':
      return `Imported keys${d.active !== undefined ? ` (${n(d.active, 'in use', 'in use')}, ${n(d.generated, 'not used yet', 'not used yet')})` : ''}`;
    case 'keys.compensate':
      return `Added ${n(d.days, 'day')} to every key that expires`;
    case 'keyless.add':
      return `Added HWID ${target} to the keyless list`;
    case 'keyless.delete':
      return `Removed HWID ${target} from the keyless list`;
    case 'blacklist.add':
      return `Blacklisted HWID ${target}${str(d.reason) ? ` (${str(d.reason)})` : ''}`;
    case 'blacklist.delete':
      return `Took HWID ${target} off the blacklist`;
    case 'settings.update':
      return `Changed the settings${changed(d)}`;
    case 'chat.connect':
      return `Connected the Discord server ${str(d.guildName) || target}`;
    case 'chat.disconnect':
      return 'Disconnected the Discord server';
    case 'script.create':
      return `Uploaded the script ${str(d.name) || target}`;
    case 'script.update':
      return `Changed the script ${str(d.name) || target}${changed(d, ['name'])}`;
    case 'script.delete':
      return `Deleted the script ${str(d.name) || target}`;
    case 'keySystem.update':
      return `Changed the key system${changed(d)}`;
    case 'service.create':
      return `Created the service ${str(d.name) || target}`;
    case 'service.update':
      return `Renamed or changed the service ${str(d.name) || target}`;
    case 'service.delete':
      return `Deleted the service ${str(d.name) || target}`;
    case 'serviceKey.regenerate':
      return 'Made a new service API key (the old one stopped working)';
    case 'accountKey.regenerate':
      return 'Made a new account key (the old one stopped working)';
    case 'permissions.update':
      return `Changed the API key permissions${changed(d)}`;
    case 'ipAllowlist.update':
      return 'Changed the IP allowlist';
    case 'login':
      return 'Signed in';
    case 'login.failed':
      return 'A sign-in failed';
    case 'twoFactor.enable':
      return 'Turned two-factor authentication on';
    case 'twoFactor.disable':
      return 'Turned two-factor authentication off';
    default:
      return `${entry.action}${target ? ` on ${target}` : ''}`;
  }
}

/** Who did it, in words: the seller in the dashboard, through the API, a buyer, or Keyward itself. */
export function describeActor(actor: AuditLike['actor'], yourAccountId?: string | null): string {
  // A team member (contract §17) is named: "by alice in the dashboard", "by alice through the API (account key)".
  const someoneElse = actor.username && actor.accountId && yourAccountId && actor.accountId !== yourAccountId;
  if (someoneElse && actor.kind === 'session') return `by ${actor.username} in the dashboard`;
  if (someoneElse && actor.kind === 'account-key') return `by ${actor.username} through the API (account key)`;
  switch (actor.kind) {
    case 'session':
      return yourAccountId && actor.accountId && actor.accountId !== yourAccountId
        ? 'by staff in the dashboard'
        : 'by you in the dashboard';
    case 'service-key':
      return 'through the API (service key)';
    case 'account-key':
      return 'through the API (account key)';
    case 'end-user':
      return 'by a buyer (reset page, key system or Discord)';
    case 'system':
      return 'by Keyward';
    default:
      return actor.kind;
  }
}
