import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';

/** Contract §10: a request whose headers or body do not arrive in time is answered 408 or closed. */
const t = useTestApp({ REQUEST_TIMEOUT_SECONDS: '1' });

/** Opens a real socket, sends `text`, and resolves with everything the server sent once it closes. */
async function sendAndWaitForClose(text: string): Promise<string> {
  const { app } = t();
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
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

  it('refuses a timeout of 0 or garbage at start', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    for (const value of ['0', 'soon'])
      expect(() => loadConfig({ KEYWARD_SECRET: 'x'.repeat(32), REQUEST_TIMEOUT_SECONDS: value })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
  });
});
