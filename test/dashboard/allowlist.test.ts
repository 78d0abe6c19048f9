import { describe, expect, it } from 'vitest';
import { isAllowlistEntry as serverRule } from '../../src/lib/ip.ts';
import { allowlistEntryProblem, isAllowlistEntry, parseAllowlist, validateAllowlist } from '../../web/src/lib/allowlist.ts';

const ACCEPTED = ['1.2.3.4', '0.0.0.0/0', '10.0.0.0/8', '255.255.255.255/32', '192.168.1.0/24'];
const REFUSED = [
  '1.2.3',
  '256.1.1.1',
  '01.2.3.4',
  '1.2.3.4/33',
  '1.2.3.4/',
  '::1',
  '2001:db8::/32',
  '0x7f.0.0.1',
  'localhost',
  '1.2.3.4/8/8',
  '',
];

describe('IP allowlist editor rules', () => {
  it('accepts and refuses exactly what the server does', () => {
    for (const entry of [...ACCEPTED, ...REFUSED]) expect(isAllowlistEntry(entry), entry).toBe(serverRule(entry));
    expect(ACCEPTED.filter(isAllowlistEntry)).toEqual(ACCEPTED);
    expect(REFUSED.filter(isAllowlistEntry)).toEqual([]);
  });

  it('splits the editor text on lines, spaces and commas', () => {
    expect(parseAllowlist(' 1.2.3.4\n\n10.0.0.0/8, 5.6.7.8  ')).toEqual(['1.2.3.4', '10.0.0.0/8', '5.6.7.8']);
    expect(parseAllowlist('  \n ')).toEqual([]);
  });

  it('names each wrong entry, its position and why', () => {
    expect(validateAllowlist(['1.2.3.4', '256.0.0.1', '10.0.0.0/40', '::1'])).toEqual([
      { index: 1, entry: '256.0.0.1', message: '"256" is not a number from 0 to 255 (no leading zeros)' },
      { index: 2, entry: '10.0.0.0/40', message: 'prefix length "/40" must be a whole number from 0 to 32' },
      { index: 3, entry: '::1', message: 'IPv6 is not supported: use an IPv4 address or range' },
    ]);
    expect(allowlistEntryProblem('1.2.3')).toBe('must have four numbers separated by dots (a.b.c.d)');
    expect(validateAllowlist(ACCEPTED)).toEqual([]);
  });

  it('refuses more than 100 entries, as the route schema does', () => {
    const many = Array.from({ length: 101 }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
    expect(validateAllowlist(many)).toEqual([{ index: -1, entry: '', message: '101 entries: the allowlist holds at most 100' }]);
    expect(validateAllowlist(many.slice(0, 100))).toEqual([]);
  });
});
