import type { Readable } from 'node:stream';
import { oneChunkAhead } from '../../lib/text-stream.ts';

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

/** GET /users' answer as a stream the socket's backpressure paces: memory holds one chunk and one page of users. */
export function usersAnswer(users: AsyncIterable<object>): Readable {
  return oneChunkAhead(usersText(users));
}
