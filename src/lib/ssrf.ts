import ipaddr from 'ipaddr.js';

/**
 * Whether an address may be the target of a server-side request: only public unicast space.
 * ipaddr.js names every special range (loopback, private, link-local with the 169.254.169.254
 * metadata address, carrier-grade NAT, unique-local, multicast, 6to4/Teredo/NAT64 wrappers that
 * can smuggle a private IPv4 address…); anything it does not call plain `unicast` is refused.
 * IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.process(bare);
  return parsed.range() === 'unicast';
}

/** A hostname that is an IP literal (IPv6 with or without brackets), as the URL parser leaves it. */
export function ipLiteral(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? bare : null;
}
