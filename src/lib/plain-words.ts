/**
 * Error sentences are read by sellers in the dashboard, not by developers: an internal field name
 * (`expiresAt`, `chatId`, `totp`) means nothing to them (contract §15). The machine-readable `field` of the
 * error envelope keeps the real name; only the sentence says it in words. Only camelCase names and the
 * platform's old generic name are rewritten, so ordinary words in a sentence stay as they are.
 */
const WORDS: Record<string, string> = {
  expiresAt: 'the expiry date',
  expirationType: 'the expiration type',
  byDays: '"Days"',
  byDate: '"Date"',
  afterRedeem: '"Starts when redeemed"',
  chatId: 'the Discord user id',
  totp: 'the two-factor code',
  maxHwids: 'Max HWIDs',
  isPremium: 'Premium',
  noHwidValidation: 'No HWID validation',
  hwidResetCooldownFreeHours: 'the HWID reset cooldown for free keys (hours)',
  hwidResetCooldownPremiumHours: 'the HWID reset cooldown for premium keys (hours)',
  chatInteractionsPublicKey: 'the Discord application public key',
  webhookUrl: 'the webhook address',
  webhookEnabled: 'the webhook switch',
  guildId: 'the Discord server id',
  guildName: 'the Discord server name',
  keyHours: 'the key lifetime (hours)',
  minSecondsPerCheckpoint: 'the minimum time per checkpoint (seconds)',
  providerToken: 'the provider token',
  pageTitle: 'the page title',
  accentColor: 'the accent colour',
  maxKeysPerAddressPerDay: 'the daily key limit per address',
  apiKey: 'the account key',
  toService: 'the target service',
  onDuplicate: 'the duplicate choice',
  'chat-platform user id': 'Discord user id',
  'chat-platform webhook': 'Discord webhook',
  'chat server id': 'Discord server id',
};

const PATTERN = new RegExp(
  `(?<![A-Za-z0-9_.])(${Object.keys(WORDS)
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|')})(?![A-Za-z0-9_])`,
  'g',
);

/** The sentence with internal names said in words; one that now starts with those words starts with a capital. */
export function plainSentence(message: string): string {
  let startsReplaced = false;
  const replaced = message.replace(PATTERN, (name, _group: string, offset: number) => {
    if (offset === 0) startsReplaced = true;
    return WORDS[name] ?? name;
  });
  return startsReplaced ? replaced.charAt(0).toUpperCase() + replaced.slice(1) : replaced;
}

/** A count with its noun as a seller reads it: "1 key", "2 keys" (contract §25: messages count right). */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
