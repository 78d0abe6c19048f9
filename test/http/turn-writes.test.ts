import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnWrites } from '../../src/lib/turn-writes.ts';

// A real HTTP server on loopback whose handler hands its answers to TurnWrites, as the hot lane does.
async function serve(handle: (response: ServerResponse) => void): Promise<{ server: Server; base: string }> {
  const server = createServer((request, response) => handle(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let running: Server | undefined;
afterEach(async () => {
  running?.closeAllConnections();
  await new Promise((resolve) => running?.close(resolve) ?? resolve(undefined));
  running = undefined;
});

describe('TurnWrites', () => {
  it('writes an answer once its turn ends, not while it is decided', async () => {
    const failures: unknown[] = [];
    const writes = new TurnWrites((err) => failures.push(err));
    const seen: { sentAtOnce?: boolean; sentByNextTurn?: boolean } = {};
    const { server, base } = await serve((response) => {
      writes.add(response, 201, { 'content-type': 'text/plain', 'x-answer': 'one' }, 'hello');
      seen.sentAtOnce = response.headersSent;
      // Scheduled after the writes' own turn end, so it sees what that turn wrote.
      setImmediate(() => (seen.sentByNextTurn = response.headersSent));
    });
    running = server;
    const answer = await fetch(`${base}/`);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-answer')).toBe('one');
    expect(await answer.text()).toBe('hello');
    expect(seen).toEqual({ sentAtOnce: false, sentByNextTurn: true });
    expect(failures).toEqual([]);
  });

  it('writes every answer of a turn, text and bytes, when one of them cannot be sent', async () => {
    const failures: unknown[] = [];
    const writes = new TurnWrites((err) => failures.push(err));
    const held: ServerResponse[] = [];
    const { server, base } = await serve((response) => {
      held.push(response);
      if (held.length < 3) return;
      // All three in one turn, in the order the requests came: the bad one in the middle.
      for (const waiting of held) {
        const which = new URL(waiting.req.url ?? '', base).pathname;
        if (which === '/bad') writes.add(waiting, 200, { 'x-bad': 'line\nbreak' }, 'never');
        else if (which === '/bytes') writes.add(waiting, 200, { 'content-length': '3' }, Buffer.from([1, 2, 3]));
        else writes.add(waiting, 200, { 'content-type': 'text/plain' }, `text for ${which}`);
      }
    });
    running = server;
    const text = fetch(`${base}/text`);
    await waitFor(() => held.length === 1);
    const bad = fetch(`${base}/bad`).then(
      () => 'answered',
      () => 'cut',
    );
    await waitFor(() => held.length === 2);
    const bytes = fetch(`${base}/bytes`);
    expect(await bad).toBe('cut');
    expect(await (await text).text()).toBe('text for /text');
    expect([...new Uint8Array(await (await bytes).arrayBuffer())]).toEqual([1, 2, 3]);
    expect(failures).toHaveLength(1);
    expect((failures[0] as NodeJS.ErrnoException).code).toBe('ERR_INVALID_CHAR');
  });
});

/** Polls a condition the server's handler makes true (a request arrived); no fixed sleep. */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
