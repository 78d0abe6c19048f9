/**
 * How long the Lua library's signature check takes (contract §13.1): loading the pure-Lua verifier once (it builds
 * its XOR table) and verifying one signed validation answer, in lua5.1 and luajit. CPU time from os.clock().
 * Run alone: `npx tsx bench/lua-verify.ts` (not part of `npm run bench`).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ED25519_LUA } from '../src/lua/ed25519.lua.ts';

const ROUNDS = 20;
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
const text = `keyward-validate-v1|3f2504e0-4f89-11d3-9a0c-0305e82c3301|KEY-${'x'.repeat(32)}|hwid-0123456789abcdef|${'n'.repeat(32)}|KEY_VALID|true|2026-12-01T10:00:00.000Z|1764064800000`;
const signature = sign(null, Buffer.from(text), privateKey);

const program = `
local t0 = os.clock()
local crypto = (function()
${ED25519_LUA}
end)()
local load_ms = (os.clock() - t0) * 1000
local pk = crypto.base64_decode("${raw.toString('base64')}")
local sig = crypto.base64_decode("${signature.toString('base64')}")
assert(crypto.verify(pk, "${text}", sig), "the signature must verify")
t0 = os.clock()
for _ = 1, ${ROUNDS} do crypto.verify(pk, "${text}", sig) end
print(string.format("%.1f %.1f", load_ms, (os.clock() - t0) * 1000 / ${ROUNDS}))
`;

const dir = mkdtempSync(join(tmpdir(), 'keyward-lua-bench-'));
try {
  const file = join(dir, 'verify.lua');
  writeFileSync(file, program);
  for (const interpreter of ['lua5.1', 'luajit']) {
    const [load, verify] = execFileSync(interpreter, [file], { encoding: 'utf8' }).trim().split(' ');
    console.log(`${interpreter}: load ${load} ms, one verification ${verify} ms (mean of ${ROUNDS})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
