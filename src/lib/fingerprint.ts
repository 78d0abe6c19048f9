import { createHash } from 'node:crypto';
import { isIP as isIpAddress } from 'node:net';

/**
 * The action fingerprint of a buyer's HWID reset (contract §24.4): a short hash of the requester's network (/24 for
 * IPv4, /48 for IPv6; never the address itself), the executor it claims, and the first 8 characters of the old and new
 * HWID, so staff can spot one key reset for many people (many networks, many devices) at a glance.
 */

/** The /24 or /48 a client address belongs to, as text; null for no address. */
export function networkOf(ip: string | null): string | null {
  if (!ip) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  if (isIpAddress(address) === 4) return `${address.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIpAddress(address) !== 6) return null;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 3)
    .map((g) => g.padStart(4, '0'))
    .join(':')}::/48`;
}

export interface Fingerprint {
  /** 8 hex characters, or null when the request came without an address (a Discord button). */
  network: string | null;
  executor: string | null;
  oldHwid: string | null;
  newHwid: string | null;
}

export function actionFingerprint(input: {
  ip: string | null;
  executor?: string | null;
  oldHwid: string | null;
  newHwid: string | null;
}): Fingerprint {
  const network = networkOf(input.ip);
  return {
    network: network === null ? null : createHash('sha256').update(network).digest('hex').slice(0, 8),
    executor: input.executor ?? null,
    oldHwid: input.oldHwid?.slice(0, 8) ?? null,
    newHwid: input.newHwid?.slice(0, 8) ?? null,
  };
}
