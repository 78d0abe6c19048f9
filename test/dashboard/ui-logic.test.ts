import { describe, expect, it } from 'vitest';
import { dayBound } from '../../web/src/lib/dayBound.ts';
import { secretOf } from '../../web/src/lib/otpauth.ts';
import { safeNext } from '../../web/src/lib/safeNext.ts';
import { ageInWords } from '../../web/src/lib/backup.ts';
import { describeExpiry, filenameOf } from '../../web/src/keys/types.ts';

/** The dashboard's pure helpers: the open-redirect guard, the export filename, expiry wording, audit date bounds, the 2FA secret. */

describe('safeNext: where sign-in returns to', () => {
  it.each([
    ['/services/abc/keys?status=banned', '/services/abc/keys?status=banned'],
    ['/account', '/account'],
    ['/', '/'],
  ])('follows the same-site path %s', (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });

  it.each<[string | null, string]>([
    [null, 'no next'],
    ['', 'an empty next'],
    ['https://evil.example/phish', 'an absolute URL'],
    ['//evil.example/phish', 'a protocol-relative URL'],
    ['/\\evil.example', 'a backslash the browser reads as //'],
    ['javascript:alert(1)', 'a script URL'],
    ['services', 'a relative path'],
    ['/login?next=%2Faccount', 'the sign-in page itself'],
  ])('sends %s (%s) to the services list', (next) => {
    expect(safeNext(next)).toBe('/services');
  });
});

describe('filenameOf: the download name from Content-Disposition', () => {
  it('reads the quoted filename', () => {
    expect(filenameOf('attachment; filename="my-game-keys-2026-11-25.csv"', 'keys.csv')).toBe('my-game-keys-2026-11-25.csv');
  });

  it.each<[string | null, string]>([
    [null, 'no header'],
    ['attachment', 'no filename'],
    ['attachment; filename=""', 'an empty filename'],
  ])('falls back for %s (%s)', (header) => {
    expect(filenameOf(header, 'keys.json')).toBe('keys.json');
  });
});

describe('describeExpiry: the keys table wording', () => {
  const now = Date.UTC(2026, 10, 25, 12, 0, 0);
  const at = (ms: number) => new Date(now + ms).toISOString();
  const HOUR = 3_600_000;

  it.each([
    [null, 'Lifetime'],
    [at(-1), 'Expired'],
    [at(0), 'Expired'],
    [at(10 * 60_000), 'in 1 h'],
    [at(5 * HOUR), 'in 5 h'],
    [at(47 * HOUR), 'in 47 h'],
    [at(48 * HOUR), 'in 2 days'],
    [at(30 * 24 * HOUR), 'in 30 days'],
    ['not a date', 'not a date'],
  ])('describes %s as %s', (expiresAt, expected) => {
    expect(describeExpiry(expiresAt, now)).toBe(expected);
  });
});

describe('dayBound: an audit date filter as the route bound', () => {
  it('starts the from-day at local midnight', () => {
    expect(dayBound('2026-11-03', false)).toBe(new Date(2026, 10, 3, 0, 0, 0, 0).toISOString());
  });

  it('ends the to-day at its last local millisecond', () => {
    expect(dayBound('2026-11-03', true)).toBe(new Date(new Date(2026, 10, 4).getTime() - 1).toISOString());
  });

  it('ends the last day of a month and of a year in the right place', () => {
    expect(dayBound('2026-02-28', true)).toBe(new Date(new Date(2026, 2, 1).getTime() - 1).toISOString());
    expect(dayBound('2026-12-31', true)).toBe(new Date(new Date(2027, 0, 1).getTime() - 1).toISOString());
  });

  it.each(['', '2026-11', '03/11/2026', '2026-13-01', '2026-02-30', '2026-11-03T10:00'])('gives no bound for %j', (day) => {
    expect(dayBound(day, false)).toBeUndefined();
    expect(dayBound(day, true)).toBeUndefined();
  });
});

describe('secretOf: the secret typed instead of scanned', () => {
  it('reads the secret of an otpauth URI', () => {
    expect(secretOf('otpauth://totp/Keyward:seller?issuer=Keyward&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30')).toBe(
      'JBSWY3DPEHPK3PXP',
    );
  });

  it('is empty when the URI has none', () => {
    expect(secretOf('otpauth://totp/Keyward:seller?issuer=Keyward')).toBe('');
  });
});

describe('ageInWords: how old the last backup is', () => {
  it.each([
    [30_000, 'just now'],
    [60_000, '1 minute ago'],
    [59 * 60_000, '59 minutes ago'],
    [2 * 3_600_000 + 60_000, '2 hours ago'],
    [24 * 3_600_000, '1 day ago'],
    [9 * 24 * 3_600_000 + 5 * 3_600_000, '9 days ago'],
  ])('says %d ms as “%s”', (ms, words) => {
    expect(ageInWords(ms)).toBe(words);
  });
});
