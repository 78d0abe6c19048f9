import { describe, expect, it } from 'vitest';
import { CodeField, ScriptBodyParser } from '../../src/modules/scripts/body-parser.ts';
import { CHUNK_BYTES } from '../../src/modules/scripts/code.ts';

/** Feeds a body in pieces of `step` bytes and returns the parsed object with the code joined back to a string. */
function parse(raw: string | Buffer, step: number) {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  const parser = new ScriptBodyParser();
  for (let i = 0; i < bytes.length; i += step) parser.push(bytes.subarray(i, i + step));
  const body = parser.finish();
  if (body && body.code instanceof CodeField) {
    const { chunks, size } = body.code.code;
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(CHUNK_BYTES);
      // Every chunk must be valid UTF-8 on its own: it is stored as a text value.
      expect(Buffer.from(chunk.toString('utf8'), 'utf8').equals(chunk)).toBe(true);
    }
    const joined = Buffer.concat(chunks);
    expect(joined.length).toBe(size);
    return { ...body, code: joined.toString('utf8') };
  }
  return body;
}

function randomText(length: number, seed: number): string {
  const alphabet = ['a', '"', '\\', '\n', '\t', '/', 'é', '日', '😀', '\u0000', '\u001f', '\u2028', '\ud800', 'x', ' '];
  let state = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

describe('ScriptBodyParser', () => {
  it.each([1, 2, 3, 7, 64, 4096])('decodes the same value JSON.parse (and UTF-8 encoding) gives, fed %i bytes at a time', (step) => {
    for (let seed = 1; seed <= 20; seed++) {
      const code = randomText(300, seed);
      const raw = JSON.stringify({ visible: true, code, name: `n${seed}`, nested: { a: [1, '}', { b: ',' }] } });
      const expected = JSON.parse(raw) as Record<string, unknown>;
      const parsed = parse(raw, step);
      expect(parsed).toEqual({ ...expected, code: Buffer.from(expected.code as string, 'utf8').toString('utf8') });
    }
  });

  it('decodes \\u escapes including surrogate pairs and lone surrogates like JSON.parse', () => {
    const raw = '{"code":"\\u0041\\u00e9\\u65e5\\ud83d\\ude00\\ud800x\\udc00\\ud800\\n"}';
    const expected = Buffer.from((JSON.parse(raw) as { code: string }).code, 'utf8').toString('utf8');
    expect(parse(raw, 1)).toEqual({ code: expected });
  });

  it('cuts chunks on character boundaries when multi-byte characters straddle them', () => {
    const code = 'a' + '日'.repeat(CHUNK_BYTES / 3 + 5) + '😀'.repeat(10);
    const parsed = parse(JSON.stringify({ code }), 65536) as { code: string };
    expect(parsed.code).toBe(code);
  });

  it('leaves a non-string code in place for the schema to refuse', () => {
    expect(parse('{"code": [1, 2], "name": "x"}', 5)).toEqual({ code: [1, 2], name: 'x' });
  });

  it('answers undefined for an empty body and refuses __proto__ naming it (contract §22)', () => {
    expect(parse('  \n', 1)).toBeUndefined();
    expect(() => parse('{"__proto__": {"polluted": true}, "name": "x"}', 3)).toThrow(
      expect.objectContaining({ extras: { field: '__proto__' } }),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    '{',
    '{"code": "x"',
    '{"a" 1}',
    '{"a": 1,}',
    '{"a": tru}',
    '{"code": "\\x"}',
    '{"code": "\\u12G4"}',
    '[1]',
    '{"a":1}}',
    '{"a": ]',
  ])('refuses the invalid JSON %s', (raw) => {
    expect(() => parse(raw, 1)).toThrow();
  });
});
