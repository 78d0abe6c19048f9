import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived (a signature is checked over these bytes). */
  raw: string;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** An outside service on loopback (Discord's API, a seller's event receiver): records every request, answers from a script, then 204. */
export class FakeReceiver {
  readonly received: ReceivedRequest[] = [];
  private readonly script: ScriptedAnswer[] = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];
  private readonly server: Server;
  port = 0;

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        this.received.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        const answer = this.script.shift() ?? { status: 204 };
        response.writeHead(answer.status, { ...(answer.body ? { 'content-type': 'application/json' } : {}), ...answer.headers });
        response.end(answer.body ?? '');
        for (const w of [...this.waiters]) {
          if (this.received.length >= w.count) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve();
          }
        }
      });
    });
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

  answer(...answers: ScriptedAnswer[]) {
    this.script.push(...answers);
  }

  /** Resolves once `count` requests in total have arrived: an event, not a sleep. */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  reset() {
    this.received.length = 0;
    this.script.length = 0;
  }

  async stop() {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close').catch(() => undefined);
  }
}
