import { describe, expect, it } from 'vitest';
import { firstProblem, rangeProblem } from '../../web/src/lib/numbers.ts';
import { describeBulkResult, describeTestOutcome } from '../../web/src/lib/outcomes.ts';
import { plainSentence } from '../../src/lib/plain-words.ts';

const COUNT = { label: 'Count', min: 1, max: 1000 };

describe('numbers outside their range are refused with a sentence, never clamped (contract §15)', () => {
  it('names the field and the range for 0, -5, 100000, 1.5 and an empty box', () => {
    expect(rangeProblem(0, COUNT)).toBe('Count must be at least 1: a whole number from 1 to 1000.');
    expect(rangeProblem(-5, COUNT)).toBe('Count must be at least 1: a whole number from 1 to 1000.');
    expect(rangeProblem(100000, COUNT)).toBe('Count must be at most 1000: a whole number from 1 to 1000.');
    expect(rangeProblem(1.5, COUNT)).toBe('Count must be a whole number from 1 to 1000.');
    expect(rangeProblem('', COUNT)).toBe('Count is empty: enter a whole number from 1 to 1000.');
    expect(rangeProblem('-10', { label: 'Days', min: 1, max: 3650 })).toBe('Days must be at least 1: a whole number from 1 to 3650.');
  });

  it('accepts the bounds themselves and says units and a subject when given', () => {
    expect(rangeProblem(1, COUNT)).toBeNull();
    expect(rangeProblem('1000', COUNT)).toBeNull();
    const cooldown = { label: 'Free keys (hours)', subject: 'The cooldown of free keys', min: 0, max: 720, unit: 'hours' };
    expect(rangeProblem(0, cooldown)).toBeNull();
    expect(rangeProblem(99999, cooldown)).toBe('The cooldown of free keys must be at most 720 hours: a whole number from 0 to 720 hours.');
    expect(firstProblem(null, rangeProblem(-3, cooldown), rangeProblem(0, COUNT))).toMatch(/^The cooldown of free keys must be at least 0/);
    expect(firstProblem(null, null)).toBeNull();
  });
});

describe('messages a seller reads say true things in plain words', () => {
  it('a reset on an unused key says there was no HWID to clear, not "skipped (lifetime)"', () => {
    const text = describeBulkResult({ action: 'resetHwid', updated: 0, notFound: [], skipped: ['k'] });
    expect(text).toBe('No HWID to clear on 1 key: not used on a device yet, or already reset');
    expect(text).not.toMatch(/lifetime/);
    expect(describeBulkResult({ action: 'extend', updated: 2, notFound: [], skipped: ['a'] })).toBe(
      '2 keys extended; 1 key left alone: lifetime keys never expire',
    );
    expect(describeBulkResult({ action: 'ban', updated: 1, notFound: ['x'], skipped: [] })).toBe(
      '1 key banned; 1 key not found (deleted meanwhile?)',
    );
  });

  it('a test message to an address that does not resolve says the address could not be reached', () => {
    expect(describeTestOutcome(false, 'cannot resolve hooks.invalid: getaddrinfo ENOTFOUND hooks.invalid')).toMatch(
      /^The webhook address could not be reached/,
    );
    expect(describeTestOutcome(false, 'no answer within 5000 ms')).toMatch(/could not be reached/);
    expect(describeTestOutcome(false, 'HTTP 429')).toMatch(/^Discord asked to slow down/);
    expect(describeTestOutcome(false, 'HTTP 502')).toMatch(/^Discord had a temporary problem/);
    expect(describeTestOutcome(true, null)).toBe('Test message delivered');
    for (const error of ['cannot resolve x', 'HTTP 429', 'HTTP 503', null]) {
      expect(describeTestOutcome(false, error)).not.toMatch(/platform asked to retry later/);
    }
  });

  it('server sentences name no internal field (expiresAt, chatId, totp) and call Discord Discord', () => {
    expect(plainSentence('expiresAt must be in the future')).toBe('The expiry date must be in the future');
    expect(plainSentence('chatId must be 17 to 20 digits, or null to unlink')).toBe(
      'The Discord user id must be 17 to 20 digits, or null to unlink',
    );
    expect(plainSentence('webhookUrl must be a chat-platform webhook')).toBe('The webhook address must be a Discord webhook');
    expect(plainSentence('totp is wrong or was already used')).toBe('The two-factor code is wrong or was already used');
    expect(plainSentence('days is required when expirationType is byDays')).toBe('days is required when the expiration type is "Days"');
    // Ordinary words and names inside other words stay as they are.
    expect(plainSentence('The note is too long')).toBe('The note is too long');
    expect(plainSentence('entries.3 is invalid; links.expiresAtX stays')).toBe('entries.3 is invalid; links.expiresAtX stays');
  });
});
