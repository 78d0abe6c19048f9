import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../src/app.ts';
import { call, type SeededService } from '../helpers/seed.ts';
import { solvedCaptcha } from '../signin/helpers.ts';

/** The key-system cookie of the answer (`kw_keysystem_<service id>=…`), as `name=value`. */
export function cookieOf(headers: Record<string, unknown>): string {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : [raw];
  const found = list.find((c): c is string => typeof c === 'string' && c.startsWith('kw_keysystem_'));
  if (!found) throw new Error('no key-system cookie set');
  return found.split(';')[0]!;
}

export async function configure(app: App, s: SeededService, body: Record<string, unknown>) {
  const res = await call(app, 'PUT', '/api/v1/keys/api/key-system', { key: s.serviceKey, body });
  if (res.status !== 200) throw new Error(`configure failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Starts a session as a browser would: solved captcha, then the cookie it gets back. */
export async function start(app: App, s: SeededService, remoteAddress?: string) {
  const res = await call(app, 'POST', `/api/v1/public/key-system/${s.identifier}/sessions`, {
    body: { captcha: await solvedCaptcha(app) },
    remoteAddress,
  });
  if (res.status !== 201) return { res, cookie: '', id: '' };
  return { res, cookie: cookieOf(res.headers), id: res.body.data.sessionId as string };
}

export const checkpoint = (app: App, s: SeededService, id: string, cookie: string, body: Record<string, unknown> = {}) =>
  call(app, 'POST', `/api/v1/public/key-system/${s.identifier}/sessions/${id}/checkpoint`, { body, headers: cookie ? { cookie } : {} });

/**
 * The three providers on loopback, answering as their documentation shows:
 * - Work.ink GET /_api/v2/token/isValid/<token>?deleteToken=1 → { valid, deleted, info }; the token is deleted when asked;
 *   GET /_api/v2/override?destination=… → { sr } (here: base64url of the destination), which a link takes as ?sr=.
 * - Linkvertise POST /api/v1/anti_bypassing?token=<seller token>&hash=<hash> → TRUE / FALSE / "Invalid token." as text.
 * - Lootlabs GET /api/public/url_encryptor?destination_url=…&api_token=… → { type, message } (here: base64url of the URL).
 * Magic tokens misbehave: "slow…" never answers, "down…" is a 503, "garbage…" is not what the docs show, "huge…"
 * is a Work.ink yes for the seller's link (10345) followed by 64 KiB of padding (over the 16 KiB answer cap).
 * Lootlabs' url_encryptor misbehaves through `lootlabsMode`.
 */
export class FakeProviders {
  readonly workinkTokens = new Set<string>();
  readonly linkvertiseHashes = new Set<string>();
  linkvertiseToken = 'lv-seller-token';
  lootlabsToken = 'll-seller-token';
  /** How the url_encryptor answers: as documented, 502, never, or a page that is not JSON. */
  lootlabsMode: 'ok' | 'down' | 'slow' | 'garbage' = 'ok';
  lastWorkinkToken = '';
  workinkOverrideDown = false;
  requests: string[] = [];
  private readonly server: Server;
  private readonly hanging: Array<() => void> = [];
  url = '';

  constructor() {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://fake');
      this.requests.push(`${request.method} ${url.pathname}`);
      const text = (status: number, body: string, type = 'text/plain') => {
        response.writeHead(status, { 'content-type': type });
        response.end(body);
      };
      const json = (body: unknown) => text(200, JSON.stringify(body), 'application/json');
      if (url.pathname === '/workink-link') {
        // A Work.ink link as the user meets it, minus the ads: a fresh token, then the seller's destination with {TOKEN} filled in.
        const token = `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
        this.workinkTokens.add(token);
        this.lastWorkinkToken = token;
        const sr = url.searchParams.get('sr');
        const dest = sr ? Buffer.from(sr, 'base64url').toString() : (url.searchParams.get('dest') ?? '');
        response.writeHead(302, { location: dest.replace('{TOKEN}', token) });
        return void response.end();
      }
      const workink = /^\/_api\/v2\/token\/isValid\/(.+)$/.exec(url.pathname);
      const token = workink ? decodeURIComponent(workink[1]!) : (url.searchParams.get('hash') ?? '');
      if (token.startsWith('slow')) return void this.hanging.push(() => text(200, '{"valid":true}'));
      if (token.startsWith('down')) return text(503, 'Service Unavailable');
      if (token.startsWith('garbage')) return text(200, '<html>maintenance</html>', 'text/html');
      if (token.startsWith('huge')) {
        const answer = { valid: true, deleted: true, info: { token, linkId: 10345 }, padding: 'x'.repeat(64 * 1024) };
        return json(answer);
      }
      if (url.pathname === '/_api/v2/override' && request.method === 'GET') {
        if (this.workinkOverrideDown) return text(503, 'Service Unavailable');
        return json({ sr: Buffer.from(url.searchParams.get('destination') ?? '').toString('base64url') });
      }
      if (workink && request.method === 'GET') {
        const valid = this.workinkTokens.has(token);
        if (valid && url.searchParams.get('deleteToken') === '1') this.workinkTokens.delete(token);
        return json(
          valid
            ? { valid: true, deleted: true, info: { token, createdAt: 1, byIp: '127.0.0.1', linkId: 10345, expiresAfter: 2 } }
            : { valid: false, deleted: false },
        );
      }
      if (url.pathname === '/api/v1/anti_bypassing' && request.method === 'POST') {
        if (url.searchParams.get('token') !== this.linkvertiseToken) return text(200, 'Invalid token.');
        const valid = this.linkvertiseHashes.delete(token);
        return text(200, valid ? 'TRUE' : 'FALSE');
      }
      if (url.pathname === '/api/public/url_encryptor' && request.method === 'GET') {
        if (this.lootlabsMode === 'down') return text(502, 'Bad Gateway');
        if (this.lootlabsMode === 'slow') return void this.hanging.push(() => text(200, '{}'));
        if (this.lootlabsMode === 'garbage') return text(200, '<html>Cloudflare: checking your browser</html>', 'text/html');
        if (url.searchParams.get('api_token') !== this.lootlabsToken) return json({ type: 'error', message: 'Invalid API token' });
        return json({ type: 'created', message: Buffer.from(url.searchParams.get('destination_url') ?? '').toString('base64url') });
      }
      text(404, 'not found');
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close() {
    for (const answer of this.hanging.splice(0)) answer();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
