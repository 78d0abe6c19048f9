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

/** A team role (contract §17) as a person is named by it. */
const ROLE: Record<string, string> = { manager: 'a manager', support: 'a support member', reseller: 'a reseller' };

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
  maxSessions: 'devices at once',
  sessionHeartbeatSeconds: 'heartbeat period',
  banReason: 'ban reason',
  banExpiresAt: 'ban end',
  webhookUrl: 'webhook',
  webhookEnabled: 'webhook switch',
  hwidResetCooldownFreeHours: 'free cooldown',
  hwidResetCooldownPremiumHours: 'premium cooldown',
  chatInteractionsPublicKey: 'Discord public key',
  chatApplicationId: 'Discord application id',
  chatBotToken: 'Discord bot token',
  chatRoleId: 'Discord buyer role',
  chatLogChannelId: 'Discord staff log channel',
  pageTitle: 'page title',
  accentColor: 'accent colour',
  durationDays: 'days from redemption',
  expirationType: 'expiration',
  days: 'days',
  disabledMessage: 'message shown while off',
  obfuscationType: 'obfuscation',
};

const changed = (details: Record<string, unknown> | null, skip: string[] = []) => {
  const names = Object.keys(details ?? {})
    // `via` is the door (Discord), said with who did it, not a changed field.
    .filter((k) => !skip.includes(k) && k !== 'via')
    .map((k) => FIELD_WORDS[k] ?? k);
  return names.length ? ` (${names.join(', ')})` : '';
};

const PROVIDERS: Record<string, string> = { sellix: 'Sellix', sellauth: 'SellAuth', generic: 'shop' };

const scriptName = (d: Record<string, unknown>, target: string) => str(d.name) || (target ? 'a deleted script' : 'a script');

/** A script edit: only what changed (the server lists only that), in words. */
function describeScriptChange(d: Record<string, unknown>, target: string): string {
  const name = scriptName(d, target);
  const parts: string[] = [];
  if (str(d.previousName)) parts.push(`renamed from ${str(d.previousName)}`);
  if (d.enabled === true) parts.push('switched on');
  if (d.enabled === false) parts.push('switched off');
  if (d.visible === true) parts.push('shown to buyers');
  if (d.visible === false) parts.push('hidden from buyers');
  if (d.codeChanged === true) parts.push(d.version !== undefined ? `version ${String(d.version)} of the code` : 'new code');
  if (d.obfuscationType !== undefined) parts.push(`obfuscation ${str(d.obfuscationType)}`);
  if (str(d.disabledMessage)) parts.push(`message “${str(d.disabledMessage)}”`);
  else if (d.disabledMessage !== undefined && d.enabled === undefined) parts.push('message removed');
  return `Changed the script ${name}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

const when = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toLocaleString() : '');

/**
 * A key edit: a ban says its reason and end (contract §27), lifting a ban says so, anything else lists the fields
 * that changed.
 */
function describeKeyEdit(d: Record<string, unknown>, key: string): string {
  if (d.status === 'banned') {
    const reason = str(d.banReason) ? `: ${str(d.banReason)}` : '';
    const until = when(d.banExpiresAt) ? ` (until ${when(d.banExpiresAt)})` : '';
    const rest = changed(d, ['type', 'status', 'banReason', 'banExpiresAt']);
    return `Banned ${key}${reason}${until}${rest}`;
  }
  if (d.status === 'active' && d.via === 'unban-link') return `Lifted the ban of ${key} (unban link)`;
  return `Edited ${key}${changed(d, ['type', 'via'])}`;
}

/** One sentence for the entry, naming the key, HWID or script it touched. */
export function describeAudit(entry: AuditLike, labels: Record<string, string> = {}): string {
  const d = entry.details ?? {};
  const target = entry.target ?? '';
  const key = target ? `key ${shortKey(target)}` : 'a key';
  switch (entry.action) {
    case 'key.generate':
      return `Generated ${n(d.count, 'key')}${target ? ` (${shortKey(target)})` : ''}`;
    case 'key.update':
      return describeKeyEdit(d, key);
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
    case 'keys.import': {
      // The server records `imported: { active, generated }` and `skipped` (a count).
      const imported = (d.imported ?? {}) as Record<string, unknown>;
      const total = Number(imported.active ?? 0) + Number(imported.generated ?? 0);
      const skipped = Number(d.skipped ?? 0) > 0 ? `; ${n(d.skipped, 'key')} already there, skipped` : '';
      // Only the kinds there are: "(1 in use, 0 not used yet)" read as if something had gone missing.
      const parts = [
        [imported.active, 'in use'],
        [imported.generated, 'not used yet'],
      ].filter(([count]) => Number(count ?? 0) > 0);
      const kinds = parts.length > 0 ? ` (${parts.map(([count, word]) => n(count, String(word), String(word))).join(', ')})` : '';
      return `Imported ${n(total, 'key')}${kinds}${skipped}`;
    }
    case 'invite.create':
      return `Invited ${ROLE[str(d.role)] ?? 'a team member'}`;
    case 'member.join':
      return `${str(d.username) || 'Someone'} joined the team as ${ROLE[str(d.role)] ?? 'a member'}`;
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
    case 'chat.commandsSync':
      return `Registered ${n(d.commands, 'command')} in the Discord server`;
    case 'chat.panel':
      return `Posted the buyer panel in Discord channel ${target}`;
    case 'script.create':
      return `Uploaded the script ${str(d.name) || target}`;
    case 'script.update':
      return describeScriptChange(d, target);
    case 'script.restore':
      return `Restored version ${str(d.version) || String(d.version ?? '')} of the script ${scriptName(d, target)}${
        d.previousVersion !== undefined ? ` (it was on version ${String(d.previousVersion)})` : ''
      }`;
    case 'signingKey.rotate':
      return 'Replaced the signing key (scripts need the new public key)';
    case 'product.create':
      return `Created the product ${str(d.name) || 'without a name'}`;
    case 'product.update':
      return str(d.previousName)
        ? `Renamed the product ${str(d.previousName)} to ${str(d.name)}${changed(d, ['name', 'previousName'])}`
        : `Changed the product ${str(d.name) || 'a product'}${changed(d, ['name'])}`;
    case 'product.delete':
      return `Deleted the product ${str(d.name) || '(name not recorded)'}`;
    case 'shop.update':
      return `Changed the shop secrets${changed(d)}`;
    case 'order.delivered':
      return `Delivered ${n(d.quantity, 'key')} for ${PROVIDERS[str(d.provider)] ?? 'a shop'} order ${str(d.orderId)}${
        str(d.productName) ? ` of the product ${str(d.productName)}` : ''
      }`;
    case 'variables.update': {
      const names = Array.isArray(d.names) ? (d.names as unknown[]).map(String) : [];
      return names.length ? `Changed the variables (${names.join(', ')})` : 'Removed every variable';
    }
    case 'eventEndpoint.create':
      return `Added the event endpoint ${str(d.url)}`;
    case 'eventEndpoint.delete':
      return `Removed the event endpoint${str(d.url) ? ` ${str(d.url)}` : ''}`;
    case 'password.reset':
      return 'Reset the password from the command line (every session was signed out)';
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
      // An action this page has no sentence for yet still reads in words (the filter's label), never its raw name.
      return (
        labels[entry.action] ??
        `Made a change (${entry.action
          .replace(/[.]/g, ' ')
          .replace(/([a-z])([A-Z])/g, '$1 $2')
          .toLowerCase()})`
      );
  }
}

/** Who did it, in words: the seller in the dashboard, through the API, a buyer, or Keyward itself. */
export function describeActor(actor: AuditLike['actor'], yourAccountId?: string | null, details?: AuditLike['details']): string {
  // Whoever holds a ban's unban link may lift it: say which door, not "a buyer" (contract §27).
  if (details?.via === 'unban-link') return 'through the unban link (Luarmor API)';
  // A team member (contract §17) is named: "by alice in the dashboard", "by alice through the API (account key)".
  const someoneElse = actor.username && actor.accountId && yourAccountId && actor.accountId !== yourAccountId;
  if (someoneElse && actor.kind === 'session') return `by ${actor.username} in the dashboard`;
  if (someoneElse && actor.kind === 'account-key') return `by ${actor.username} through the API (account key)`;
  if (someoneElse && actor.kind === 'discord') return `by ${actor.username} in Discord`;
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
    case 'discord':
      return yourAccountId && actor.accountId && actor.accountId !== yourAccountId ? 'by staff in Discord' : 'by you in Discord';
    default:
      return actor.kind;
  }
}
