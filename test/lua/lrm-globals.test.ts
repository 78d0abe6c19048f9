// Contract §16.3 in real lua5.1 and luajit: scripts written for Luarmor read the LRM_ globals the fetch sets, byte for
// byte whatever a note holds; an ffa script runs without a key; the key line works in Luarmor's usual spellings.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';

// An executor's HttpGet (curl through io.popen) and gethwid; `getgenv` only where the variant asks for one.
const shim = (withGetgenv: boolean) => `
game = {}
function game:HttpGet(url)
  local quoted = "'" .. (string.gsub(url, "'", "'\\\\''")) .. "'"
  local pipe = io.popen("curl -sS --max-time 20 " .. quoted)
  local body = pipe:read("*a")
  pipe:close()
  return body
end
gethwid = function() return os.getenv("KW_HWID") end
${withGetgenv ? 'local genv = {}\ngetgenv = function() return genv end' : ''}
`;

// The stored script: prints each global as its bytes, so the test compares exactly what Lua holds.
const READER = `
local env = (type(getgenv) == "function" and getgenv()) or _G
local function bytes(s) local t = {} for i = 1, #s do t[#t + 1] = string.byte(s, i) end return table.concat(t, ",") end
local names = { "LRM_IsUserPremium", "LRM_LinkedDiscordID", "LRM_SecondsLeft", "LRM_TotalExecutions", "LRM_UserNote", "LRM_ScriptName", "LRM_ScriptVersion" }
for _, n in ipairs(names) do
  local v = env[n]
  if type(v) == "string" then print(n .. "=s:" .. bytes(v))
  elseif v == math.huge then print(n .. "=huge")
  else print(n .. "=" .. type(v) .. ":" .. tostring(v)) end
end
print("where=" .. (rawget(_G, "LRM_ScriptName") ~= nil and "_G" or "genv"))
`;

const NOTE = 'line one\n2 "quoted" ]]..error("x")..[[ \\ é ✓ 🎮\t]=]';
const CHAT_ID = '123456789012345678';
const bytes = (text: string) => `s:${[...Buffer.from(text, 'utf8')].join(',')}`;

const t = useTestApp();
let dir: string;
let runs = 0;
let s: SeededService;
let keyed: { id: string; loadstring: string };
let free: { id: string; loadstring: string };

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  t().ctx.config.baseUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-lrm-'));
  s = await seedService(t().ctx);
  keyed = await uploadScript(t().app, s, { name: 'lrm-reader', code: READER });
  free = await uploadScript(t().app, s, { name: 'lrm-free', code: READER, ffa: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(interpreter: string, program: string, env: Record<string, string> = {}) {
  const file = join(dir, `run${++runs}.lua`);
  writeFileSync(file, program);
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      interpreter,
      [file],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

const parse = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );

/**
 * A key whose note holds what the API refuses in a note today (a newline, a tab): written into the row, as older data or
 * an import from elsewhere may hold it, since the globals must read back whatever is stored.
 */
async function noteKey() {
  const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId: CHAT_ID });
  await t().ctx.db.updateTable('generatedKeys').set({ note: NOTE }).where('key', '=', key!).execute();
  return key!;
}

for (const interpreter of ['lua5.1', 'luajit']) {
  describe(`LRM_ globals in ${interpreter}`, () => {
    it('reads every global back exactly, through getgenv()', async () => {
      const key = await noteKey();
      const out = await run(interpreter, `${shim(true)}\ngetgenv().script_key = "${key}"\n${keyed.loadstring}`, {
        KW_HWID: `${interpreter}-pc-g`,
      });
      expect(out.stderr).toBe('');
      expect(parse(out.stdout)).toEqual({
        LRM_IsUserPremium: 'boolean:true',
        LRM_LinkedDiscordID: bytes(CHAT_ID),
        LRM_SecondsLeft: 'huge',
        LRM_TotalExecutions: 'number:1',
        LRM_UserNote: bytes(NOTE),
        LRM_ScriptName: bytes('lrm-reader'),
        LRM_ScriptVersion: bytes('1'),
        where: 'genv',
      });
      // The next run counts itself too.
      const again = await run(interpreter, `${shim(true)}\ngetgenv().script_key = "${key}"\n${keyed.loadstring}`, {
        KW_HWID: `${interpreter}-pc-g`,
      });
      expect(parse(again.stdout).LRM_TotalExecutions).toBe('number:2');
    });

    it('sets them in _G without getgenv, with whole seconds left for a dated key', async () => {
      const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 2 });
      const out = await run(interpreter, `${shim(false)}\nscript_key = "${key}";\n${keyed.loadstring}`, { KW_HWID: `${interpreter}-pc-d` });
      expect(out.stderr).toBe('');
      const globals = parse(out.stdout);
      expect(globals).toMatchObject({ LRM_LinkedDiscordID: bytes(''), LRM_UserNote: bytes(''), where: '_G' });
      expect(globals.LRM_SecondsLeft).toBe(`number:${2 * 86_400}`);
    });

    it('runs an ffa script without a key, not premium, with no time left', async () => {
      const out = await run(interpreter, `${shim(false)}\n${free.loadstring}`, { KW_HWID: `${interpreter}-pc-f` });
      expect(out.stderr).toBe('');
      expect(parse(out.stdout)).toMatchObject({
        LRM_IsUserPremium: 'boolean:false',
        LRM_SecondsLeft: 'number:0',
        LRM_TotalExecutions: 'number:0',
      });
      // The same script without ffa refuses a keyless run.
      const refused = await run(interpreter, `${shim(false)}\n${keyed.loadstring}`, { KW_HWID: `${interpreter}-pc-f` });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('KEY_INCORRECT');
    });

    it('reads the key line in each of its usual spellings', async () => {
      for (const line of ['script_key = "KEY";', 'script_key = "KEY"', 'script_key="KEY"', 'getgenv().script_key = "KEY"']) {
        const key = (await generateKeys(t().app, s.serviceKey))[0]!;
        const out = await run(interpreter, `${shim(true)}\n${line.replace('KEY', key)}\n${keyed.loadstring}`, {
          KW_HWID: `${interpreter}-pc-k`,
        });
        expect(out.stderr, line).toBe('');
        expect(parse(out.stdout).LRM_IsUserPremium, line).toBe('boolean:true');
      }
    });

    it('sets them for api.load_script() of the Lua library too', async () => {
      const [key] = await generateKeys(t().app, s.serviceKey);
      const program = `${shim(false)}
local api = loadstring(game:HttpGet("${t().ctx.config.baseUrl}/api/v1/lua/library.lua"))()
api.script_id = "${keyed.id}"
api.load_script("${key}")`;
      const out = await run(interpreter, program, { KW_HWID: `${interpreter}-pc-l` });
      expect(out.stderr).toBe('');
      expect(parse(out.stdout)).toMatchObject({ LRM_IsUserPremium: 'boolean:true', LRM_ScriptName: bytes('lrm-reader'), where: '_G' });
    });

    it('shows the ban reason when a banned key runs', async () => {
      const [key] = await generateKeys(t().app, s.serviceKey);
      await run(interpreter, `${shim(false)}\nscript_key = "${key}"\n${keyed.loadstring}`, { KW_HWID: `${interpreter}-pc-b` });
      await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status: 'banned', banReason: 'chargeback' } });
      const out = await run(interpreter, `${shim(false)}\nscript_key = "${key}"\n${keyed.loadstring}`, { KW_HWID: `${interpreter}-pc-b` });
      expect(out.code).not.toBe(0);
      expect(out.stderr).toContain('This key is banned: chargeback');
    });
  });
}

describe('the fetch with globals=1', () => {
  it('keeps X-Script-SHA256 the hash of the stored code, and answers as before without globals=1', async () => {
    const key = await noteKey();
    const plain = await t().app.inject({ url: `/api/v1/vss/fetch/${keyed.id}?key=${key}&hwid=pc-h` });
    const withGlobals = await t().app.inject({ url: `/api/v1/vss/fetch/${keyed.id}?key=${key}&hwid=pc-h&globals=1` });
    expect(plain.body).toBe(READER);
    expect(withGlobals.headers['x-script-sha256']).toBe(plain.headers['x-script-sha256']);
    expect(withGlobals.body.endsWith(READER)).toBe(true);
    expect(withGlobals.body.startsWith('do local e=')).toBe(true);
    expect(withGlobals.headers.etag).toBeUndefined();
  });
});
