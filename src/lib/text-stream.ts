import { Readable } from 'node:stream';

/**
 * Text made chunk by chunk (a key export, the Luarmor user list) as a stream that reads one chunk ahead of its
 * consumer, not Readable.from's default of sixteen. A chunk that waited behind fifteen others outlived V8's young
 * generation and was promoted, so most of a large answer passed through the old generation, which only a full
 * collection frees: 130 MB of RSS for 300,000 Luarmor users on SQLite, 2 MB one chunk ahead (docs/benchmarks.md, the
 * fifth round's eighth session).
 */
export function oneChunkAhead(chunks: AsyncIterable<string>): Readable {
  return Readable.from(chunks, { highWaterMark: 1 });
}
