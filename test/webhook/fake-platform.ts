import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The body exactly as it arrived (a signature is checked over these bytes). */
  raw: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** The answer waits for this: a platform that is slow to respond. */
  gate?: Promise<void>;
}

/**
 * An outside service on loopback (a chat platform, Discord's API, a seller's event receiver): records every request and every TCP connection, and answers from a
 * script (then 204 once the script runs out). `connections` counts sockets, so a test can prove that
 * a refused target never saw so much as a connection attempt.
 */
export class FakePlatform {
  readonly received: Received[] = [];
  connections = 0;
  private readonly script: Answer[] = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];
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
          body = JSON.parse(text);
        } catch {
          // keep the text
        }
        this.received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, raw: text });
        const answer = this.script.shift() ?? { status: 204 };
        this.notify();
        void (answer.gate ?? Promise.resolve()).then(() => {
          const payload = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
          response.writeHead(answer.status, {
            ...(payload && typeof answer.body !== 'string' ? { 'content-type': 'application/json' } : {}),
            ...answer.headers,
          });
          response.end(payload);
        });
      });
    });
    this.server.on('connection', () => {
      this.connections += 1;
    });
  }

  private notify() {
    for (const w of [...this.waiters]) {
      if (this.received.length >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get origin() {
    return `http://127.0.0.1:${this.port}`;
  }

  webhookUrl(id = '123456789012345678', token = 'tok_en-1') {
    return `${this.origin}/api/webhooks/${id}/${token}`;
  }

  answer(...answers: Answer[]) {
    this.script.push(...answers);
  }

  /** Resolves once `count` requests in total have arrived: a real event, not a sleep. */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  reset() {
    this.received.length = 0;
    this.script.length = 0;
  }

  contents(): string[] {
    return this.received.map((r) => (r.body as { content?: string }).content ?? '');
  }

  async stop() {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close').catch(() => undefined);
  }
}
