import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, invalid } from '../../errors.ts';
import { forbiddenKeyAt } from '../../lib/forbidden-keys.ts';
import { ChunkCollector, CodeTooLarge, CODE_LIMIT_BYTES, type ScriptCode } from './code.ts';

/**
 * A JSON body parser for the two routes that take script code. It reads the request as a stream and
 * decodes the `code` string straight into UTF-8 chunks, so a 40 MB upload costs about one copy of the
 * code instead of raw body + body string + parsed string. The other fields are small and go through
 * JSON.parse as usual; the route schema then validates the whole object as on every other route.
 */
const NON_CODE_LIMIT_BYTES = 1024 * 1024;
// A legal 40 MB script may grow up to six times when every character is written as \uXXXX.
const RAW_LIMIT_BYTES = CODE_LIMIT_BYTES * 6 + NON_CODE_LIMIT_BYTES;

/** Stands in for the code during schema validation; the route reads the real code with uploadedCode(). */
const PLACEHOLDER = 'x';
const uploads = new WeakMap<FastifyRequest, ScriptCode>();

export class CodeField {
  constructor(readonly code: ScriptCode) {}
}

const invalidJson = () => Object.assign(new Error('invalid JSON'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', 'The script code is larger than 40 MB (41,943,040 bytes)');
const bodyTooLarge = () => new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');

const enum S {
  Start,
  KeyOrEnd,
  Key,
  KeyEscape,
  Colon,
  Value,
  Code,
  CodeEscape,
  CodeUnicode,
  Raw,
  RawString,
  RawEscape,
  AfterValue,
  KeyAfterComma,
  End,
}

const isWs = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const SIMPLE_ESCAPES: Record<number, number> = {
  0x22: 0x22,
  0x5c: 0x5c,
  0x2f: 0x2f,
  0x62: 0x08,
  0x66: 0x0c,
  0x6e: 0x0a,
  0x72: 0x0d,
  0x74: 0x09,
};

export class ScriptBodyParser {
  private state = S.Start;
  private readonly body: Record<string, unknown> = {};
  private sawAnything = false;
  private key: number[] = [];
  private keyName = '';
  private raw: number[] = [];
  private depth = 0;
  private nonCodeBytes = 0;
  private rawBytes = 0;
  private code: ChunkCollector | null = null;
  private hex = 0;
  private hexDigits = 0;
  private highSurrogate = -1;

  /** Throws AppError (413) or a JSON error (400). */
  push(data: Buffer): void {
    this.rawBytes += data.length;
    if (this.rawBytes > RAW_LIMIT_BYTES) throw tooLarge();
    try {
      let i = 0;
      while (i < data.length) {
        if (this.state === S.Code) {
          // Fast path: copy a run of plain bytes in one go; quotes, escapes and control bytes go through step().
          let j = i;
          while (j < data.length) {
            const b = data[j]!;
            if (b === 0x22 || b === 0x5c || b < 0x20) break;
            j++;
          }
          if (j > i) {
            this.flushSurrogate();
            this.code!.write(data, i, j);
            i = j;
            continue;
          }
        }
        this.step(data[i]!);
        i++;
      }
    } catch (error) {
      if (error instanceof CodeTooLarge) throw tooLarge();
      throw error;
    }
  }

  finish(): Record<string, unknown> | undefined {
    if (!this.sawAnything) return undefined;
    if (this.state !== S.End) throw invalidJson();
    return this.body;
  }

  private countNonCode(): void {
    if (++this.nonCodeBytes > NON_CODE_LIMIT_BYTES) throw bodyTooLarge();
  }

  private step(b: number): void {
    if (!this.sawAnything && !isWs(b)) this.sawAnything = true;
    switch (this.state) {
      case S.Code:
        if (b === 0x22) {
          this.flushSurrogate();
          this.set(this.keyName, new CodeField(this.code!.finish()));
          this.code = null;
          this.state = S.AfterValue;
        } else if (b === 0x5c) this.state = S.CodeEscape;
        else if (b < 0x20) throw invalidJson();
        else {
          this.flushSurrogate();
          this.code!.byte(b);
        }
        return;
      case S.CodeEscape:
        if (b === 0x75) {
          this.hex = 0;
          this.hexDigits = 0;
          this.state = S.CodeUnicode;
          return;
        }
        if (SIMPLE_ESCAPES[b] === undefined) throw invalidJson();
        this.flushSurrogate();
        this.code!.byte(SIMPLE_ESCAPES[b]);
        this.state = S.Code;
        return;
      case S.CodeUnicode: {
        const digit = b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : b >= 0x41 && b <= 0x46 ? b - 0x37 : -1;
        if (digit < 0) throw invalidJson();
        this.hex = this.hex * 16 + digit;
        if (++this.hexDigits === 4) {
          this.unit(this.hex);
          this.state = S.Code;
        }
        return;
      }
      case S.Start:
        if (isWs(b)) return;
        if (b !== 0x7b) throw invalidJson();
        this.state = S.KeyOrEnd;
        return;
      case S.KeyOrEnd:
      case S.KeyAfterComma:
        if (isWs(b)) return;
        if (b === 0x7d && this.state === S.KeyOrEnd) {
          this.state = S.End;
          return;
        }
        if (b !== 0x22) throw invalidJson();
        this.key = [b];
        this.state = S.Key;
        return;
      case S.Key:
        this.countNonCode();
        this.key.push(b);
        if (b === 0x5c) this.state = S.KeyEscape;
        else if (b === 0x22) {
          this.keyName = parseJson(this.key) as string;
          this.state = S.Colon;
        }
        return;
      case S.KeyEscape:
        this.countNonCode();
        this.key.push(b);
        this.state = S.Key;
        return;
      case S.Colon:
        if (isWs(b)) return;
        if (b !== 0x3a) throw invalidJson();
        this.state = S.Value;
        return;
      case S.Value:
        if (isWs(b)) return;
        if (b === 0x22 && this.keyName === 'code') {
          this.code = new ChunkCollector(CODE_LIMIT_BYTES);
          this.highSurrogate = -1;
          this.state = S.Code;
          return;
        }
        this.raw = [];
        this.depth = 0;
        this.state = S.Raw;
        this.rawByte(b);
        return;
      case S.Raw:
        this.rawByte(b);
        return;
      case S.RawString:
        this.countNonCode();
        this.raw.push(b);
        if (b === 0x5c) this.state = S.RawEscape;
        else if (b === 0x22) this.state = S.Raw;
        return;
      case S.RawEscape:
        this.countNonCode();
        this.raw.push(b);
        this.state = S.RawString;
        return;
      case S.AfterValue:
        if (isWs(b)) return;
        if (b === 0x2c) this.state = S.KeyAfterComma;
        else if (b === 0x7d) this.state = S.End;
        else throw invalidJson();
        return;
      case S.End:
        if (!isWs(b)) throw invalidJson();
        return;
    }
  }

  private rawByte(b: number): void {
    if (this.depth === 0 && (b === 0x2c || b === 0x7d)) {
      this.set(this.keyName, parseJson(this.raw));
      this.state = b === 0x2c ? S.KeyAfterComma : S.End;
      return;
    }
    this.countNonCode();
    this.raw.push(b);
    if (b === 0x22) this.state = S.RawString;
    else if (b === 0x7b || b === 0x5b) this.depth++;
    else if (b === 0x7d || b === 0x5d) {
      if (--this.depth < 0) throw invalidJson();
    }
  }

  private set(key: string, value: unknown): void {
    // Same policy as the app's JSON parser (contract §22): a forbidden name, here or nested, is a 400 naming it.
    const field = forbiddenKeyAt({ [key]: value });
    if (field !== null) throw invalid(field, `${field} is not a known field`);
    this.body[key] = value;
  }

  /** A \uXXXX code unit: pairs surrogates; a lone one becomes U+FFFD as UTF-8 encoding of JSON.parse's result would. */
  private unit(u: number): void {
    if (this.highSurrogate >= 0) {
      if (u >= 0xdc00 && u <= 0xdfff) {
        this.codePoint(0x10000 + ((this.highSurrogate - 0xd800) << 10) + (u - 0xdc00));
        this.highSurrogate = -1;
        return;
      }
      this.flushSurrogate();
    }
    if (u >= 0xd800 && u <= 0xdbff) this.highSurrogate = u;
    else if (u >= 0xdc00 && u <= 0xdfff) this.codePoint(0xfffd);
    else this.codePoint(u);
  }

  private flushSurrogate(): void {
    if (this.highSurrogate < 0) return;
    this.highSurrogate = -1;
    this.codePoint(0xfffd);
  }

  private codePoint(cp: number): void {
    const c = this.code!;
    if (cp < 0x80) c.byte(cp);
    else if (cp < 0x800) {
      c.byte(0xc0 | (cp >> 6));
      c.byte(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      c.byte(0xe0 | (cp >> 12));
      c.byte(0x80 | ((cp >> 6) & 0x3f));
      c.byte(0x80 | (cp & 0x3f));
    } else {
      c.byte(0xf0 | (cp >> 18));
      c.byte(0x80 | ((cp >> 12) & 0x3f));
      c.byte(0x80 | ((cp >> 6) & 0x3f));
      c.byte(0x80 | (cp & 0x3f));
    }
  }
}

function parseJson(bytes: number[]): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw invalidJson();
  }
}

/**
 * Installs the parser for `application/json` in this (encapsulated) plugin only, plus a hook that moves
 * the decoded code aside before schema validation. Other routes keep the app's 1 MB JSON parser.
 */
export function installScriptBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (_request, payload, done) => {
    const parser = new ScriptBodyParser();
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      payload.removeListener('data', onData);
      // Keep reading (and discarding) so the client can finish sending and read the answer.
      payload.resume();
      done(error as Error, undefined);
    };
    const onData = (chunk: Buffer) => {
      try {
        parser.push(chunk);
      } catch (error) {
        fail(error);
      }
    };
    payload.on('data', onData);
    payload.on('error', fail);
    payload.on('end', () => {
      if (settled) return;
      try {
        const body = parser.finish();
        settled = true;
        done(null, body);
      } catch (error) {
        fail(error);
      }
    });
  });
  app.addHook('preValidation', async (request) => {
    const body = request.body as Record<string, unknown> | undefined;
    const field = body && typeof body === 'object' ? body.code : undefined;
    if (field instanceof CodeField) {
      uploads.set(request, field.code);
      body!.code = field.code.size > 0 ? PLACEHOLDER : '';
    }
  });
}

/** The code a request uploaded, or undefined when its body had no `code` string. */
export function uploadedCode(request: FastifyRequest): ScriptCode | undefined {
  return uploads.get(request);
}
