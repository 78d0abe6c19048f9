import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';

/** Contract §10: a request whose headers or body do not arrive in time is answered 408 or closed. */
const t = useTestApp({ REQUEST_TIMEOUT_SECONDS: '1' });

/** The app's port, listening first if it is not yet. */
async function portOf(): Promise<number> {
  const { app } = t();
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** A real connection, with the server's own socket of it and a promise of that socket's close. */
async function connectWatched(): Promise<{ socket: Socket; server: Socket; serverClosed: Promise<void> }> {
  const port = await portOf();
  const serverSide = new Promise<Socket>((resolve) => t().app.server.once('connection', resolve));
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const server = await serverSide;
  return { socket, server, serverClosed: new Promise((resolve) => server.once('close', () => resolve())) };
}

/** Opens a real socket, sends `text`, and resolves with everything the server sent once it closes. */
async function sendAndWaitForClose(text: string): Promise<string> {
  const port = await portOf();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => (received += String(chunk)));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('REQUEST_TIMEOUT_SECONDS', () => {
  it('answers 408 and closes a connection whose body stops half-way', async () => {
    const answer = await sendAndWaitForClose(
      'POST /api/v1/keys/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"service":"',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection whose headers never finish', async () => {
    const answer = await sendAndWaitForClose('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(answer === '' || /^HTTP\/1\.1 408/.test(answer)).toBe(true);
  });

  it('keeps an idle keep-alive connection only for the configured time, then closes it', async () => {
    const socket = connect(await portOf(), '127.0.0.1');
    let received = '';
    const answers = (n: number) => received.split('HTTP/1.1 200').length - 1 >= n;
    const waiters: Array<() => void> = [];
    socket.on('data', (chunk) => {
      received += String(chunk);
      waiters.splice(0).forEach((wake) => wake());
    });
    const answered = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (answers(n) ? resolve() : waiters.push(check));
        check();
      });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise((resolve) => socket.once('connect', resolve));

    // Two requests on one connection: it is kept alive, and the server says for how long (the configured 1 s).
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered(1);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered(2);
    expect(received.match(/^keep-alive: timeout=\d+/gim)).toEqual(['Keep-Alive: timeout=1', 'Keep-Alive: timeout=1']);
    // Then idle: the server closes it (the test's own timeout bounds the wait), with nothing more sent.
    await closed;
    expect(received.split('HTTP/1.1 ').length - 1).toBe(2);
  });

  it('cuts a connection that never sends a byte', async () => {
    const { socket, serverClosed } = await connectWatched();
    // Read (nothing comes), so the client's own socket sees the server's end.
    socket.resume();
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // The server's own end closes (the test's timeout bounds the wait), and the client sees it.
    await serverClosed;
    await closed;
  });

  it('cuts a connection whose client stops reading a long answer', async () => {
    const { socket, serverClosed } = await connectWatched();
    // Far more answer than the loopback's buffers hold, asked for at once and never read.
    socket.pause();
    socket.write('GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(400));
    await serverClosed;
    // Then the client reads what had reached it: less than the answers it asked for, so it was cut, not served.
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.resume();
    await ended;
    const one = await t().app.inject({ method: 'GET', url: '/openapi.json' });
    expect(one.statusCode).toBe(200);
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(400 * one.rawPayload.length);
  });

  it('refuses a timeout of 0 or garbage at start', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    for (const value of ['0', 'soon'])
      expect(() => loadConfig({ KEYWARD_SECRET: 'x'.repeat(32), REQUEST_TIMEOUT_SECONDS: value })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
  });
});
