import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ipLiteral, isPublicAddress } from '../lib/ssrf.ts';

/**
 * The one way Keyward makes a request to an address a user chose (webhooks). The SSRF rules live here:
 * - only listed origins: the platform's own (`platformOrigins`) or the operator's (`explicitOrigins`);
 * - the host is resolved once; unless the origin is explicit, every address must be public unicast;
 * - the connection goes to the checked address (a `lookup` that answers it), with the name as Host/SNI,
 *   so a second DNS answer cannot redirect the request (no rebinding gap);
 * - redirects are never followed (a 3xx is handed back as a status, like any other);
 * - a time limit on the whole exchange and a size limit on the response.
 */
export interface OutboundPolicy {
  platformOrigins: readonly string[];
  explicitOrigins: readonly string[];
  /** Any https origin whose addresses are all public (event endpoints a seller names); off unless set. */
  anyHttpsOrigin?: boolean;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Tests replace DNS; production uses the system resolver. */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The request was not made: the target is not allowed. Never retried. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
}

/** The request was attempted and failed below HTTP (DNS, connect, reset, timeout). Worth a retry. */
export class OutboundNetworkError extends Error {
  override name = 'OutboundNetworkError';
}

const systemResolve = async (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

async function checkedTarget(url: URL, policy: OutboundPolicy): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRefused('only http(s) targets are allowed');
  if (url.username || url.password) throw new OutboundRefused('credentials in the URL are not allowed');
  const explicit = policy.explicitOrigins.includes(url.origin);
  const open = policy.anyHttpsOrigin === true && url.protocol === 'https:';
  if (!explicit && !open && !policy.platformOrigins.includes(url.origin)) throw new OutboundRefused(`origin ${url.origin} is not allowed`);

  const literal = ipLiteral(url.hostname);
  let addresses: Array<{ address: string; family: number }>;
  if (literal) addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(url.hostname);
    } catch (error) {
      throw new OutboundNetworkError(`cannot resolve ${url.hostname}: ${(error as Error).message}`);
    }
  }
  if (addresses.length === 0) throw new OutboundNetworkError(`${url.hostname} has no address`);
  // Every answer must be acceptable: picking "the public one" would let a mixed answer through on retry.
  if (!explicit) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) throw new OutboundRefused(`${url.hostname} resolves to a non-public address`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** POSTs a JSON body to `rawUrl` under the policy. Resolves with any HTTP answer, 3xx included. */
export const postJson = (rawUrl: string, payload: unknown, policy: OutboundPolicy): Promise<OutboundResponse> =>
  send(rawUrl, policy, { method: 'POST', json: payload, userAgent: 'Keyward (webhook delivery)' });

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  json?: unknown;
  /** A JSON text sent byte for byte (a signed body must be sent as it was signed); instead of `json`. */
  rawJson?: string;
  headers?: Record<string, string>;
  userAgent: string;
}

/** Any request under the policy (provider checks use GET). Resolves with any HTTP answer, 3xx included. */
export async function send(rawUrl: string, policy: OutboundPolicy, options: OutboundRequest): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new OutboundRefused('not a URL');
  }
  const target = await checkedTarget(url, policy);
  const body =
    options.rawJson !== undefined
      ? Buffer.from(options.rawJson)
      : options.json === undefined
        ? null
        : Buffer.from(JSON.stringify(options.json));

  // Answers the address checked above whatever name is asked, in both callback shapes node uses.
  const pinned = ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;

  const isHttps = url.protocol === 'https:';
  const transport = isHttps ? https : http;
  const literal = ipLiteral(url.hostname) !== null;

  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, response?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response!);
    };
    const request = transport.request({
      protocol: url.protocol,
      hostname: literal ? target.address : url.hostname,
      port: url.port || (isHttps ? 443 : 80),
      path: url.pathname + url.search,
      method: options.method,
      lookup: pinned,
      agent: false,
      ...(isHttps && !literal ? { servername: url.hostname } : {}),
      headers: {
        ...options.headers,
        ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
        'user-agent': options.userAgent,
        host: url.host,
      },
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish(new OutboundNetworkError(`no answer within ${policy.timeoutMs} ms`));
    }, policy.timeoutMs);

    request.on('error', (error) => finish(new OutboundNetworkError(error.message)));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish(null, { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > policy.maxResponseBytes) {
          // The status is what matters; an oversized body is cut, never buffered.
          chunks.push(chunk.subarray(0, Math.max(0, policy.maxResponseBytes - (size - chunk.length))));
          response.destroy();
          done();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', done);
      response.on('error', (error) => finish(new OutboundNetworkError(error.message)));
    });
    if (body) request.end(body);
    else request.end();
  });
}
