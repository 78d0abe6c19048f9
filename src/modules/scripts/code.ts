/**
 * Script code in transit: a list of UTF-8 byte chunks, each cut on a character boundary, so the code
 * can be stored, streamed and sized without ever building one 40 MB string.
 */
export const CODE_LIMIT_BYTES = 41_943_040;
export const CHUNK_BYTES = 1024 * 1024;

export class ScriptCode {
  constructor(
    readonly chunks: Buffer[],
    readonly size: number,
  ) {}

  static fromString(text: string): ScriptCode {
    const collector = new ChunkCollector(Number.MAX_SAFE_INTEGER);
    collector.write(Buffer.from(text, 'utf8'));
    return collector.finish();
  }
}

/** Where a chunk may end without splitting a multi-byte UTF-8 character (end is exclusive). */
export function utf8Boundary(buf: Buffer, end: number): number {
  let i = end - 1;
  let back = 0;
  while (i >= 0 && back < 3 && (buf[i]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return end;
  const lead = buf[i]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + length <= end ? end : i;
}

export class CodeTooLarge extends Error {}

/** Gathers bytes into CHUNK_BYTES chunks cut on character boundaries, refusing more than `limit` bytes. */
export class ChunkCollector {
  private readonly chunks: Buffer[] = [];
  private current = Buffer.allocUnsafe(CHUNK_BYTES);
  private pos = 0;
  private total = 0;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.total;
  }

  byte(b: number): void {
    if (this.pos === CHUNK_BYTES) this.cut();
    this.current[this.pos++] = b;
    if (++this.total > this.limit) throw new CodeTooLarge();
  }

  write(data: Buffer, start = 0, end = data.length): void {
    let offset = start;
    while (offset < end) {
      if (this.pos === CHUNK_BYTES) this.cut();
      const n = Math.min(CHUNK_BYTES - this.pos, end - offset);
      // Buffer.copy costs more than a short loop for the few-byte runs between JSON escapes.
      if (n < 64) for (let k = 0; k < n; k++) this.current[this.pos + k] = data[offset + k]!;
      else data.copy(this.current, this.pos, offset, offset + n);
      this.pos += n;
      offset += n;
      this.total += n;
      if (this.total > this.limit) throw new CodeTooLarge();
    }
  }

  private cut(): void {
    const end = utf8Boundary(this.current, this.pos);
    const next = Buffer.allocUnsafe(CHUNK_BYTES);
    this.current.copy(next, 0, end, this.pos);
    this.chunks.push(this.current.subarray(0, end));
    this.pos = this.pos - end;
    this.current = next;
  }

  finish(): ScriptCode {
    // The last chunk is copied out so its unused tail is not kept alive.
    if (this.pos > 0) this.chunks.push(Buffer.from(this.current.subarray(0, this.pos)));
    this.current = Buffer.alloc(0);
    return new ScriptCode(this.chunks, this.total);
  }
}
