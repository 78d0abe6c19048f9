import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { generateKeys, seedService } from '../helpers/seed.ts';

// Guarantee: SIGTERM (the app closing) during an export ends that download (cut short, or 503 before its first
// bytes), never a 500, on SQLite too; requests arriving after SIGTERM get 503 UNAVAILABLE or a refused connection.
const t = useTestApp();

describe('closing during an export', () => {
  it('answers an export the server closes on before its first bytes with 503 UNAVAILABLE, never 500', async () => {
    const s = await seedService(t().ctx);
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 5 });
    const second = await anotherInstance(t());
    const address = await second.listen({ host: '127.0.0.1', port: 0 });
    const answer = fetch(`${address}/api/v1/keys/api/keys/export?format=csv`, { headers: { 'x-api-key': s.serviceKey } }).then(
      async (res) => ({ status: res.status, text: await res.text().catch(() => null) }),
    );
    // The worker thread is starting: it has not sent a byte yet.
    await expect.poll(() => second.ctx.exports.running).toBe(1);
    await second.close();
    const res = await answer;
    expect(res.status).not.toBe(500);
    if (res.status === 503) expect(JSON.parse(res.text!)).toMatchObject({ success: false, code: 'UNAVAILABLE' });
    else {
      // The worker was faster than the close: then the download is cut short, never completed.
      expect(res.status).toBe(200);
      expect(res.text).toBeNull();
    }
  });
});

describe('requests after the close began', () => {
  it('answers a request that arrives while the server closes with 503 UNAVAILABLE in the error envelope', async () => {
    const second = await anotherInstance(t());
    const address = new URL(await second.listen({ host: '127.0.0.1', port: 0 }));
    const socket = connect(Number(address.port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const arrived = new Promise<void>((resolve) => second.server.once('request', () => resolve()));
    // A request in flight (its body half sent) keeps the connection busy, so closing waits for it…
    const body = '{"username":"someone","password":"not the password","captcha":"x"}';
    socket.write(
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: keyward.test\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 10),
    );
    await arrived;
    const closed = second.close();
    await expect.poll(() => second.server.listening).toBe(false);
    // …then its body ends and a second request follows on the same connection, after the close began.
    socket.write(body.slice(10) + 'GET /healthz HTTP/1.1\r\nHost: keyward.test\r\n\r\n');
    await ended;
    await closed;
    const text = Buffer.concat(received).toString();
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).not.toMatch(/^HTTP\/1\.1 5/);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(answers[1]).toMatch(/connection: close/i);
    expect(answers[1]).toContain('"code":"UNAVAILABLE"');
    expect(answers[1]).toMatch(/x-request-id: /i);
  });
});
