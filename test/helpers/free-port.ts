import { createServer } from 'node:net';

/**
 * A loopback port free now, so BASE_URL can name the address a page is then opened at: the dashboard warns about
 * (and contract §14 refuses changes from) any other origin.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
