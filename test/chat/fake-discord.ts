import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';

/**
 * Discord's REST API on loopback (DISCORD_API_URL), enough of it for the console (contract §24): who the bot is, its
 * member record and the roles, a channel, pages of guild members, message posts, the command PUT, interaction
 * webhooks and role grants. Records every call; `mode` makes it answer 429, 500, or hang (no answer until `release`).
 */

export interface Call {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export const BOT_ID = '900000000000000001';
export const BOT_ROLE = '900000000000000002';

export class FakeDiscord {
  readonly calls: Call[] = [];
  mode: 'ok' | '429' | '500' | 'hang' = 'ok';
  /** The guild's members, paged by `after` as Discord does. */
  members: Array<{ user: { id: string; bot?: boolean }; roles: string[] }> = [];
  botPermissions = String((1n << 28n) | (1n << 10n) | (1n << 11n) | (1n << 14n));
  botInGuild = true;
  private readonly held: ServerResponse[] = [];
  private readonly waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  private messageId = 0;
  private readonly server: Server;
  port = 0;

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // keep the text
        }
        this.calls.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
        if (this.mode === 'hang') {
          this.held.push(response);
          this.notify();
          return;
        }
        this.notify();
        if (this.mode === '429')
          return this.send(response, 429, { message: 'You are being rate limited.', retry_after: 30 }, { 'retry-after': '30' });
        if (this.mode === '500') return this.send(response, 500, { message: 'Internal Server Error' });
        this.route(request.method ?? '', request.url ?? '', response);
      });
    });
  }

  private send(response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
    const payload = body === undefined ? '' : JSON.stringify(body);
    response.writeHead(status, { ...(payload && { 'content-type': 'application/json' }), ...headers });
    response.end(payload);
  }

  private route(method: string, url: string, response: ServerResponse) {
    const { pathname, searchParams } = new URL(url, 'http://x');
    const path = pathname.replace(/^\/api\/v10/, '');
    if (method === 'GET' && path === '/users/@me') return this.send(response, 200, { id: BOT_ID, username: 'keyward-bot', bot: true });
    let m = /^\/guilds\/(\d+)\/members\/(\d+)$/.exec(path);
    if (method === 'GET' && m) {
      if (!this.botInGuild) return this.send(response, 404, { message: 'Unknown Member', code: 10007 });
      return this.send(response, 200, { user: { id: m[2] }, roles: [BOT_ROLE] });
    }
    m = /^\/guilds\/(\d+)\/roles$/.exec(path);
    if (method === 'GET' && m) {
      return this.send(response, 200, [
        { id: m[1], permissions: '0', position: 0 },
        { id: BOT_ROLE, permissions: this.botPermissions, position: 5 },
      ]);
    }
    m = /^\/guilds\/(\d+)\/members$/.exec(path);
    if (method === 'GET' && m) {
      const limit = Number(searchParams.get('limit') ?? '1');
      const after = BigInt(searchParams.get('after') ?? '0');
      const page = this.members.filter((x) => BigInt(x.user.id) > after).slice(0, limit);
      return this.send(response, 200, page);
    }
    m = /^\/channels\/(\d+)$/.exec(path);
    if (method === 'GET' && m) return this.send(response, 200, { id: m[1], type: 0, permission_overwrites: [] });
    if (method === 'POST' && /^\/channels\/\d+\/messages$/.test(path))
      return this.send(response, 200, { id: String(800000000000000000n + BigInt(++this.messageId)) });
    if (method === 'PUT' && /^\/applications\/\d+\/guilds\/\d+\/commands$/.test(path)) return this.send(response, 200, []);
    if (method === 'PATCH' && /^\/webhooks\/\d+\/[^/]+\/messages\/@original$/.test(path)) return this.send(response, 200, { id: '1' });
    if ((method === 'PUT' || method === 'DELETE') && /^\/guilds\/\d+\/members\/\d+\/roles\/\d+$/.test(path))
      return this.send(response, 204);
    return this.send(response, 404, { message: 'Unknown route' });
  }

  private notify() {
    for (const w of [...this.waiters]) {
      if (w.test()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  /** Resolves when a call matching `test` has arrived: a real event, not a sleep. */
  waitForCall(test: (call: Call) => boolean): Promise<void> {
    const check = () => this.calls.some(test);
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test: check, resolve }));
  }

  /** Answers every held request (as an outage ending) and goes back to answering. */
  release() {
    this.mode = 'ok';
    for (const response of this.held.splice(0)) this.send(response, 503, { message: 'recovered' });
  }

  get holding() {
    return this.held.length;
  }

  reset() {
    this.release();
    this.calls.length = 0;
    this.members = [];
    this.botInGuild = true;
    this.botPermissions = String((1n << 28n) | (1n << 10n) | (1n << 11n) | (1n << 14n));
  }

  paths(method?: string) {
    return this.calls.filter((c) => !method || c.method === method).map((c) => `${c.method} ${c.path}`);
  }

  get origin() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    this.release();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close').catch(() => undefined);
  }
}
