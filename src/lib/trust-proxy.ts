import { isAddressOrRange } from './ip.ts';

/** What TRUST_PROXY may say: off, every hop, the N proxies nearest the server, or which addresses are proxies. */
export type TrustProxySetting = boolean | number | string[];

/** The names proxy-addr understands besides addresses and CIDR ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Why a TRUST_PROXY list entry cannot be used, or null when it can. */
export function trustProxyEntryProblem(entry: string): string | null {
  if (NAMED_RANGES.has(entry) || isAddressOrRange(entry)) return null;
  return `"${entry}" is not an IP address, a CIDR range, or one of loopback, linklocal, uniquelocal`;
}

/**
 * The setting as Fastify's trustProxy option. Fastify 5 reads a bare number as "trust no hop" (it cannot check
 * the peer), which behind a proxy made every client the proxy: one address's bad keys then spent everyone's
 * budget. A hop count becomes proxy-addr's trust function instead: the chain is the socket's address followed by
 * X-Forwarded-For read from the right, and the first `hops` entries of it are proxies, so the client is the
 * address `hops` places from the right end (or the leftmost one when the chain is shorter).
 */
export function fastifyTrustProxy(setting: TrustProxySetting): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  const hops = setting;
  return (_address, hop) => hop < hops;
}
