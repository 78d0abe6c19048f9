import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { CHUNK_BYTES, ChunkCollector, type ScriptCode } from './code.ts';
import { deleteChunks, findChunk, insertChunk } from './scripts.repository.ts';

/**
 * Immutable blobs of script code, stored as ordered text chunks. A blob is written once under a fresh
 * id and deleted as a whole; scripts point at blobs, so swapping code is a pointer change.
 */
export async function writeBlob(db: Db, code: ScriptCode): Promise<{ blobId: string; size: number; sha256: string }> {
  const blobId = randomUUID();
  // Hashed chunk by chunk as it is written (X-Script-SHA256, versions): no second pass, no whole copy.
  const hash = createHash('sha256');
  let size = 0;
  for (let seq = 0; seq < code.chunks.length; seq++) {
    // The bytes are bound as they are (no 1 MB string per chunk): PostgreSQL takes a Buffer as the
    // binary form of text, which is its UTF-8; SQLite keeps it as given. Invalid UTF-8 is repaired
    // first, as decoding it would (U+FFFD), since PostgreSQL refuses it.
    let data = code.chunks[seq]!;
    if (!isUtf8(data)) data = Buffer.from(data.toString('utf8'), 'utf8');
    size += data.length;
    hash.update(data);
    await insertChunk(db, { blobId, seq, data });
  }
  return { blobId, size, sha256: hash.digest('hex') };
}

/** Deletes the blob as a whole. */
export const deleteBlob = deleteChunks;

/** The blob one chunk at a time; throws if it is cut short (deleted while being read). */
export async function* readBlob(db: Db, blobId: string, expectedSize: number): AsyncGenerator<Buffer> {
  let sent = 0;
  for (let seq = 0; sent < expectedSize; seq++) {
    const row = await findChunk(db, blobId, seq);
    if (!row) throw new Error(`script blob ${blobId} ended early at chunk ${seq}`);
    const chunk = typeof row.data === 'string' ? Buffer.from(row.data, 'utf8') : row.data;
    sent += chunk.length;
    yield chunk;
  }
}

/** Re-chunks arbitrary output bytes (from an obfuscator) on character boundaries. */
export function collectOutput(parts: Buffer[]): ScriptCode {
  const collector = new ChunkCollector(Number.MAX_SAFE_INTEGER);
  for (const part of parts) collector.write(part);
  return collector.finish();
}

export { CHUNK_BYTES };

export const SCRIPT_TOPIC = 'script';

/** Every instance drops its cached copy of the script's row (loader/delivery-cache.ts); call after the change committed. */
export const scriptChanged = (ctx: AppContext, scriptId: string) => ctx.bus.publish(SCRIPT_TOPIC, scriptId);
