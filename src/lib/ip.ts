import ipaddr from 'ipaddr.js';

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const ENTRY = new RegExp(`^${OCTET}(\\.${OCTET}){3}(/(3[0-2]|[12]?\\d))?$`);

/** Strict a.b.c.d or a.b.c.d/n: ipaddr.js alone would also accept octal, hex and short forms. */
export const isAllowlistEntry = (entry: string): boolean => ENTRY.test(entry);

/** The client's IPv4 address, unwrapping ::ffff:a.b.c.d; null for any other IPv6 or garbage. */
export function clientIPv4(address: string): ipaddr.IPv4 | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed as ipaddr.IPv4;
  const v6 = parsed as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : null;
}

export function ipAllowed(address: string, entries: readonly string[]): boolean {
  if (entries.length === 0) return true;
  const ip = clientIPv4(address);
  if (!ip) return false;
  return entries.some((entry) => {
    const [range, bits] = entry.includes('/') ? ipaddr.IPv4.parseCIDR(entry) : [ipaddr.IPv4.parse(entry), 32];
    return ip.match(range, bits);
  });
}

/** An address or CIDR range of either family (what METRICS_ALLOW takes). */
export function isAddressOrRange(entry: string): boolean {
  return entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
}

/** Whether `address` (either family; an IPv4-mapped IPv6 address counts as IPv4) is one of the addresses or ranges. */
export function inRanges(address: string, entries: readonly string[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  return entries.some((entry) => {
    const [range, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.process(entry), ip.kind() === 'ipv4' ? 32 : 128];
    return range.kind() === ip.kind() && ip.match(range as never, bits);
  });
}

const PLAIN_IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * The one key every per-address limit and lockout counts under (rate limits, failed-authentication budget, key-system
 * keys per address …), so that no spelling of an address buys a fresh budget: an IPv4 address as itself, an
 * IPv4-mapped IPv6 address (::ffff:203.0.113.77, in any spelling) as that IPv4 address, and any other IPv6 address
 * as its /64 (one customer line is handed a whole /64, so its addresses are one client), written in one canonical
 * form whatever the case or zero compression of the text. Anything unparsable is its own key, lower-cased.
 */
export function addressKey(address: string): string {
  if (PLAIN_IPV4.test(address)) return address;
  const bare = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return address.toLowerCase();
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/** Whether HOST only listens on this machine (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}
