import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Cuts a connection on which nothing moved either way for `idleMs`: a client that connects and never sends, or one that
 * stops reading an answer (contract §10: a slow client never holds a connection for ever). Node's per-socket timeout
 * did this before, but it re-armed a timer on every request and every write: 6 % of a heartbeat's CPU. Here one
 * sweep every `everyMs` compares each connection's byte counts with the last sweep's. Stalled headers and bodies stay
 * Node's (headersTimeout, requestTimeout), idle keep-alive connections too (keepAliveTimeout).
 * Answers what stops the sweeps.
 */
export function cutIdleConnections(server: Server, idleMs: number, everyMs: number): () => void {
  const connections = new Map<Socket, { moved: number; since: number }>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { moved: 0, since: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [socket, last] of connections) {
      const moved = bytesMoved(socket);
      if (moved !== last.moved) {
        last.moved = moved;
        last.since = now;
      } else if (now - last.since >= idleMs) socket.destroy();
    }
  }, everyMs);
  sweep.unref();
  return () => clearInterval(sweep);
}

/**
 * Bytes read plus bytes handed to the system. `bytesWritten` also counts what still waits in the socket's own buffer,
 * so while a client reads slowly it would stand still (the buffer shrinks as much as the sent bytes grow).
 */
const bytesMoved = (socket: Socket) =>
  socket.bytesRead + ((socket as unknown as { _bytesDispatched?: number })._bytesDispatched ?? socket.bytesWritten);
