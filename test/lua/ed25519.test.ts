import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ED25519_LUA } from '../../src/lua/ed25519.lua.ts';

/** The pure-Lua verifier on its own, in the real interpreters (lua5.1 always; luajit too, as some executors run it). */
let dir: string;
let runs = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'keyward-ed25519-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(interpreter: string, program: string) {
  const file = join(dir, `t${++runs}.lua`);
  writeFileSync(file, `local crypto = (function()\n${ED25519_LUA}\nend)()\n${program}`);
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(interpreter, [file], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A Lua string literal of any bytes, written with decimal escapes only. */
const luaBytes = (b: Buffer) => `"${[...b].map((x) => `\\${x}`).join('')}"`;
/** A Lua array of byte values. */
const luaArray = (b: Buffer) => `{${[...b].join(',')}}`;

// RFC 8032 §7.1, tests 1 to 3.
const RFC8032 = [
  {
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    secret: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    publicKey: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const keyFromSeed = (hex: string) =>
  createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'pkcs8' });
const rawPublic = (key: ReturnType<typeof createPublicKey>) => Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');

// L, the order of the base point, little-endian.
const L = Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex');
function addL(s: Buffer): Buffer {
  const out = Buffer.alloc(32);
  let carry = 0;
  for (let i = 0; i < 32; i++) {
    const v = s[i]! + L[i]! + carry;
    out[i] = v & 255;
    carry = v >> 8;
  }
  return out;
}

describe.each(['lua5.1', 'luajit'])('the pure-Lua verifier in %s', (interpreter) => {
  it('computes SHA-512 like node for the FIPS vectors and for lengths around the block boundaries', async () => {
    const messages = [
      Buffer.from(''),
      Buffer.from('abc'),
      Buffer.from('abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu'),
      ...[111, 112, 127, 128, 129, 239, 240, 255, 256, 1000].map((n) =>
        Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + n) & 255)),
      ),
    ];
    const result = await run(interpreter, messages.map((m) => `print(crypto.sha512(${luaBytes(m)}))`).join('\n'));
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e',
    );
    expect(lines[1]).toBe(
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    );
    expect(lines[2]).toBe(
      '8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909',
    );
    expect(lines).toEqual(messages.map((m) => createHash('sha512').update(m).digest('hex')));
  });

  it('decodes base64 with and without padding, and refuses what is not base64', async () => {
    const samples = [Buffer.from(''), Buffer.from('f'), Buffer.from('fo'), Buffer.from('foo'), Buffer.from([0, 255, 254, 1, 128, 63, 62])];
    const program = [
      ...samples.map((b) => `print(table.concat(crypto.base64_decode("${b.toString('base64')}"), ","))`),
      `print(table.concat(crypto.base64_decode("${Buffer.from('fo').toString('base64').replace(/=/g, '')}"), ","))`,
      'print(crypto.base64_decode("ab-c"), crypto.base64_decode("abcde"), crypto.base64_decode(nil))',
    ].join('\n');
    const result = await run(interpreter, program);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').slice(0, -1)).toEqual([...samples.map((b) => [...b].join(',')), '102,111', 'nil\tnil\tnil']);
  });

  it('accepts the RFC 8032 test vectors and refuses any change to key, message or signature', async () => {
    // The vectors are checked by node too, so a typo here cannot make both agree on a wrong answer.
    for (const v of RFC8032) {
      const key = keyFromSeed(v.secret);
      expect(rawPublic(createPublicKey(key)).toString('hex')).toBe(v.publicKey);
      expect(sign(null, Buffer.from(v.message, 'hex'), key).toString('hex')).toBe(v.signature);
    }
    const lines: string[] = [];
    for (const v of RFC8032) {
      const pk = Buffer.from(v.publicKey, 'hex');
      const msg = Buffer.from(v.message, 'hex');
      const sig = Buffer.from(v.signature, 'hex');
      const flipped = (b: Buffer, i: number) => {
        const c = Buffer.from(b);
        c[i] = c[i]! ^ 1;
        return c;
      };
      lines.push(`print(crypto.verify(${luaArray(pk)}, ${luaBytes(msg)}, ${luaArray(sig)}))`);
      lines.push(`print(crypto.verify(${luaArray(pk)}, ${luaBytes(Buffer.concat([msg, Buffer.from('x')]))}, ${luaArray(sig)}))`);
      lines.push(`print(crypto.verify(${luaArray(pk)}, ${luaBytes(msg)}, ${luaArray(flipped(sig, 3))}))`);
      lines.push(`print(crypto.verify(${luaArray(pk)}, ${luaBytes(msg)}, ${luaArray(flipped(sig, 40))}))`);
      lines.push(`print(crypto.verify(${luaArray(flipped(pk, 0))}, ${luaBytes(msg)}, ${luaArray(sig)}))`);
      // S + L is the same point but a second encoding: RFC 8032 refuses S >= L (malleability).
      const malleable = Buffer.concat([sig.subarray(0, 32), addL(sig.subarray(32))]);
      lines.push(`print(crypto.verify(${luaArray(pk)}, ${luaBytes(msg)}, ${luaArray(malleable)}))`);
    }
    const result = await run(interpreter, lines.join('\n'));
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual(RFC8032.flatMap(() => ['true', 'false', 'false', 'false', 'false', 'false']));
  });

  it("agrees with node's Ed25519 on fresh keys and messages of many lengths, and refuses a key that is not a point", async () => {
    const cases: Array<{ pk: Buffer; msg: Buffer; sig: Buffer; expected: boolean }> = [];
    for (const length of [0, 1, 63, 64, 100, 150, 300]) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const msg = Buffer.from(Array.from({ length }, (_, i) => (i * 7 + length) & 255));
      const sig = sign(null, msg, privateKey);
      const pk = rawPublic(publicKey);
      cases.push({ pk, msg, sig, expected: true });
      const other = rawPublic(generateKeyPairSync('ed25519').publicKey);
      cases.push({
        pk: other,
        msg,
        sig,
        expected: verify(
          null,
          msg,
          createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: other.toString('base64url') }, format: 'jwk' }),
          sig,
        ),
      });
    }
    // y = 2 has no x on the curve.
    const notAPoint = Buffer.alloc(32);
    notAPoint[0] = 2;
    cases.push({ pk: notAPoint, msg: Buffer.from('m'), sig: cases[0]!.sig, expected: false });
    const program = [
      ...cases.map((c) => `print(crypto.verify(${luaArray(c.pk)}, ${luaBytes(c.msg)}, ${luaArray(c.sig)}))`),
      'print(crypto.verify({1,2,3}, "m", {}), crypto.verify(nil, "m", nil))',
    ].join('\n');
    const result = await run(interpreter, program);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual([...cases.map((c) => String(c.expected)), 'false\tfalse']);
    expect(cases.filter((c) => !c.expected).length).toBeGreaterThanOrEqual(8);
  });
});
