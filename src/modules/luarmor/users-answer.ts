import { Readable } from 'node:stream';

// About 64 KB of text per chunk: few writes, and little held at once.
const CHUNK_CHARS = 65_536;

/** GET /users' answer as text, in chunks of about CHUNK_CHARS, written as the records come. */
async function* usersText(users: AsyncIterable<object>): AsyncGenerator<string> {
  let chunk = '{"success":true,"message":"Success!","users":[';
  let first = true;
  for await (const user of users) {
    chunk += (first ? '' : ',') + JSON.stringify(user);
    first = false;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]}`;
}

/**
 * GET /users' answer as a stream the socket's backpressure paces: the database walk goes no further than one chunk ahead
 * of what the client has taken, so memory holds one chunk and one page, however many users there are. One, not
 * Readable.from's default of 16 objects: chunks that waited behind fifteen others outlived the young generation, and
 * most of a 250 MB answer passed through the old one (docs/benchmarks.md, fifth round's eighth session: 130 MB of RSS
 * for 300,000 users on SQLite, 2 MB with one chunk ahead).
 */
export function usersAnswer(users: AsyncIterable<object>): Readable {
  return Readable.from(usersText(users), { highWaterMark: 1 });
}
