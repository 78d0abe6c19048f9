import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';

/**
 * The Lua library's signed checks (contract §13.1) in the real interpreters, against this app on loopback and
 * against a spoofing server that stands where a cracker's hook would: it answers `valid: true` unsigned, signed
 * with another key, replayed from another nonce, or signed by the real server long ago. Each is SIGNATURE_INVALID;
 * the real server's signed answer is KEY_VALID.
 */
const SHIM = `
game = {}
function game:HttpGet(url)
  -- An executor without gethwid sends its HWID in a fingerprint header the script cannot read (KW_HEADER_HWID).
  local header = os.getenv("KW_HEADER_HWID")
  local extra = header and (" -H 'Syn-Fingerprint: " .. header .. "'") or ""
  local pipe = io.popen("curl -sS --max-time 20" .. extra .. " '" .. (string.gsub(url, "'", "")) .. "'")
  local body = pipe:read("*a")
  pipe:close()
  return body
end
gethwid = function() return os.getenv("KW_HWID") end
`;

const t = useTestApp();
let dir: string;
let runs = 0;
let spoof: Server;
let spoofUrl: string;
let s: SeededService;
let scriptId: string;
let publicKey: string;

type Mode = 'proxy' | 'unsigned' | 'error-valid' | 'other-key' | 'replay' | 'stale' | 'flip-premium' | 'v1';
let mode: Mode = 'proxy';
const otherKey = generateKeyPairSync('ed25519').privateKey;

/** What the real server answers for this path and query (through app.inject, as a proxy would forward it). */
async function realAnswer(path: string, query: URLSearchParams) {
  const res = await t().app.inject({ method: 'GET', url: `${path}?${query}` });
  return res.json() as { success: boolean; data: Record<string, unknown> };
}

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  t().ctx.config.baseUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  // The Lua side compares serverTime with its own os.time(): the test clock starts at the real time.
  t().clock.now = Date.now();
  dir = mkdtempSync(join(tmpdir(), 'keyward-signed-'));
  s = await seedService(t().ctx);
  scriptId = (await uploadScript(t().app, s, { name: 'signed-lua', code: 'print("RAN")' })).id;
  publicKey = (await call(t().app, 'GET', `/api/v1/public/services/${s.id}/signing-key`)).body.data.publicKey;

  spoof = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://spoof');
    const query = url.searchParams;
    const answer = async () => {
      if (mode === 'unsigned') {
        return { success: true, data: { valid: true, code: 'KEY_VALID', message: 'ok', isPremium: true, expiresAt: null } };
      }
      // An error envelope is never signed: one that names a passing code must not pass.
      if (mode === 'error-valid') return { success: false, code: 'KEY_VALID', error: 'The key is valid' };
      if (mode === 'other-key') {
        const data = { valid: true, code: 'KEY_VALID', message: 'ok', isPremium: false, expiresAt: null, serverTime: Date.now() };
        const text = [
          'keyward-validate-v1',
          s.id,
          query.get('key'),
          query.get('hwid'),
          query.get('nonce'),
          'KEY_VALID',
          'true',
          '',
          data.serverTime,
        ].join('|');
        return {
          success: true,
          data: {
            ...data,
            serviceId: s.id,
            hwid: query.get('hwid'),
            signature: sign(null, Buffer.from(text), otherKey).toString('base64'),
          },
        };
      }
      // Contract §22: the real v2 answer with isPremium flipped (a freemium script's premium features unlocked).
      if (mode === 'flip-premium') {
        const real = await realAnswer(url.pathname, query);
        return { ...real, data: { ...real.data, isPremium: !real.data.isPremium } };
      }
      // A real answer signed with the v1 text (sig dropped on the way): the library reads only v2 now.
      if (mode === 'v1') query.delete('sig');
      if (mode === 'replay') query.set('nonce', 'RecordedEarlier0123456789abcdef');
      if (mode === 'stale') {
        const now = t().clock.now;
        t().clock.now = now - 6 * 60_000;
        try {
          return await realAnswer(url.pathname, query);
        } finally {
          t().clock.now = now;
        }
      }
      return realAnswer(url.pathname, query);
    };
    answer().then(
      (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => spoof.listen(0, '127.0.0.1', resolve));
  spoofUrl = `http://127.0.0.1:${(spoof.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => spoof.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function lua(interpreter: string, program: string, hwid: string, headerHwid?: string) {
  const file = join(dir, `run${++runs}.lua`);
  writeFileSync(file, SHIM + program);
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      interpreter,
      [file],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KW_HWID: hwid, ...(headerHwid ? { KW_HEADER_HWID: headerHwid } : {}) },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Loads the library from the real server, then checks `key` against `checkUrl` (the real server or the spoof). */
const program = (options: { key: string; checkUrl: string; publicKey?: string; showProtection?: boolean; noGethwid?: boolean }) => `
${options.noGethwid ? 'gethwid = nil' : ''}
local api = loadstring(game:HttpGet("${t().ctx.config.baseUrl}/api/v1/lua/library.lua"))()
api.script_id = "${scriptId}"
api.base_url = "${options.checkUrl}"
${options.publicKey ? `api.public_key = "${options.publicKey}"` : ''}
local ok, status = pcall(api.check_key, "${options.key}")
if not ok then print("RAISED", status) return end
print("CODE", status.code, type(status.data) == "table" and tostring(status.data.valid) or "nil")
${options.showProtection ? 'print("PROTECTED", tostring(status.hwid_protected))' : ''}
`;

describe.each(['lua5.1', 'luajit'])('api.check_key with api.public_key in %s', (interpreter) => {
  let hwidCount = 0;
  const freshKey = async () => ({ key: (await generateKeys(t().app, s.serviceKey))[0]!, hwid: `${interpreter}-pc-${++hwidCount}` });

  it("accepts the real server's signed answer as KEY_VALID, directly and through a faithful proxy", async () => {
    const { key, hwid } = await freshKey();
    const direct = await lua(interpreter, program({ key, checkUrl: t().ctx.config.baseUrl, publicKey }), hwid);
    expect(direct.stderr).toBe('');
    expect(direct.stdout).toBe('CODE\tKEY_VALID\ttrue\n');
    mode = 'proxy';
    const proxied = await lua(interpreter, program({ key, checkUrl: spoofUrl, publicKey }), hwid);
    expect(proxied.stdout).toBe('CODE\tKEY_VALID\ttrue\n');
  });

  it('passes a signed refusal through as its own code', async () => {
    const wrong = await lua(interpreter, program({ key: 'not-a-key', checkUrl: t().ctx.config.baseUrl, publicKey }), 'pc-x');
    expect(wrong.stdout).toBe('CODE\tKEY_INCORRECT\tfalse\n');
  });

  it.each<Mode>(['unsigned', 'error-valid', 'other-key', 'replay', 'stale', 'flip-premium', 'v1'])(
    'refuses a spoofed answer (%s) as SIGNATURE_INVALID',
    async (spoofMode) => {
      const { key, hwid } = await freshKey();
      mode = spoofMode;
      const run = await lua(interpreter, program({ key, checkUrl: spoofUrl, publicKey }), hwid);
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('CODE\tSIGNATURE_INVALID\tnil\n');
    },
  );

  it("refuses the real server's answer under a public key that is not the service's (an old one after a rotation)", async () => {
    const { key, hwid } = await freshKey();
    const stale = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString(
      'base64',
    );
    const run = await lua(interpreter, program({ key, checkUrl: t().ctx.config.baseUrl, publicKey: stale }), hwid);
    expect(run.stdout).toBe('CODE\tSIGNATURE_INVALID\tnil\n');
  });

  it('says hwid_protected = true with gethwid, and false for an executor without it (the HWID is then not signed)', async () => {
    const { key, hwid } = await freshKey();
    const withHwid = await lua(interpreter, program({ key, checkUrl: t().ctx.config.baseUrl, publicKey, showProtection: true }), hwid);
    expect(withHwid.stdout).toBe('CODE\tKEY_VALID\ttrue\nPROTECTED\ttrue\n');
    const other = await freshKey();
    const headerOnly = await lua(
      interpreter,
      program({ key: other.key, checkUrl: t().ctx.config.baseUrl, publicKey, showProtection: true, noGethwid: true }),
      other.hwid,
      other.hwid,
    );
    expect(headerOnly.stderr).toBe('');
    expect(headerOnly.stdout).toBe('CODE\tKEY_VALID\ttrue\nPROTECTED\tfalse\n');
  });

  it('without api.public_key takes the unsigned spoof at its word (what signing protects against)', async () => {
    const { key, hwid } = await freshKey();
    mode = 'unsigned';
    const run = await lua(interpreter, program({ key, checkUrl: spoofUrl }), hwid);
    expect(run.stdout).toBe('CODE\tKEY_VALID\ttrue\n');
  });
});
