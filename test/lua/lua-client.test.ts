import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { serviceExecutions, uploadScript } from '../scripts/script-helpers.ts';

/**
 * The real thing: Lua 5.1 runs the loadstring the API hands out, against this app listening on
 * loopback. The shim gives it what an executor would: game:HttpGet (curl through io.popen),
 * script_key, and gethwid or a fingerprint header.
 */
const SHIM = `
game = {}
function game:HttpGet(url)
  local header = os.getenv("KW_FINGERPRINT")
  local quoted = "'" .. (string.gsub(url, "'", "'\\\\''")) .. "'"
  local cmd = "curl -sS --max-time 20 " .. (header and ("-H 'Syn-Fingerprint: " .. header .. "' ") or "") .. quoted
  local pipe = io.popen(cmd)
  local body = pipe:read("*a")
  pipe:close()
  return body
end
script_key = os.getenv("KW_KEY")
if os.getenv("KW_HWID") then
  gethwid = function() return os.getenv("KW_HWID") end
end
`;

const t = useTestApp();
let dir: string;
let runs = 0;

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t().app.server.address() as AddressInfo;
  // Loadstrings and the library embed BASE_URL; point it at this listener.
  t().ctx.config.baseUrl = `http://127.0.0.1:${port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-lua-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lua(program: string, env: { KW_KEY?: string; KW_HWID?: string; KW_FINGERPRINT?: string }) {
  const file = join(dir, `run${++runs}.lua`);
  writeFileSync(file, SHIM + program);
  const childEnv: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('lua5.1', [file], { env: childEnv, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const MARKER = 'KEYWARD-LUA-MARKER-91c2';
let s: SeededService;
let script: { id: string; loadstring: string };

beforeAll(async () => {
  s = await seedService(t().ctx);
  script = await uploadScript(t().app, s, { name: 'lua-game', code: `print("${MARKER}", script_key ~= nil)` });
});

describe('the loadstring in a real Lua 5.1', () => {
  it('runs the stored script for a valid key (HWID from gethwid) and counts the execution', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    const before = await serviceExecutions(t().app, s);
    const run = await lua(script.loadstring, { KW_KEY: key, KW_HWID: 'lua-pc-1' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${MARKER}\ttrue\n`);
    expect(await serviceExecutions(t().app, s)).toBe(before + 1);
    const row = await t().ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(row.hwid).toBe('lua-pc-1');
  });

  it('does not run the script for an invalid key and raises an error naming the code', async () => {
    const run = await lua(script.loadstring, { KW_KEY: 'not-a-real-key', KW_HWID: 'lua-pc-2' });
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain(MARKER);
    expect(run.stderr).toContain('Keyward: KEY_INCORRECT');
  });

  it('binds the executor fingerprint header when gethwid is missing, and refuses the key on another machine', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    const first = await lua(script.loadstring, { KW_KEY: key, KW_FINGERPRINT: 'fp-lua-1' });
    expect(first.stdout).toContain(MARKER);
    const row = await t().ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(row.hwid).toBe('fp-lua-1');
    const other = await lua(script.loadstring, { KW_KEY: key, KW_FINGERPRINT: 'fp-lua-2' });
    expect(other.stdout).not.toContain(MARKER);
    expect(other.stderr).toContain('KEY_HWID_LOCKED');
  });
});

describe('the Lua library in a real Lua 5.1', () => {
  const program = (scriptId: string) => `
local api = loadstring(game:HttpGet(LIBRARY_URL))()
api.script_id = "${scriptId}"
local ok, status = pcall(api.check_key, script_key)
if not ok then print("RAISED", status) return end
print("CODE", status.code, status.message, type(status.data) == "table" and tostring(status.data.valid) or "nil")
if status.code == "KEY_VALID" or status.code == "KEYLESS" then api.load_script() end
`;
  const withUrl = (scriptId: string) => `LIBRARY_URL = "${t().ctx.config.baseUrl}/api/v1/lua/library.lua"\n${program(scriptId)}`;

  it('check_key reports KEY_VALID and load_script runs the script', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    const run = await lua(withUrl(script.id), { KW_KEY: key, KW_HWID: 'lib-pc' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`CODE\tKEY_VALID\tThe key is valid\ttrue\n${MARKER}\ttrue\n`);
  });

  it('check_key returns the refusal code without raising, and nothing runs', async () => {
    const run = await lua(withUrl(script.id), { KW_KEY: 'wrong', KW_HWID: 'lib-pc' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('CODE\tKEY_INCORRECT\tThe key is incorrect\tfalse\n');
  });

  it('check_key reports an expired key and an unknown script as codes', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    t().clock.advance(2 * 86_400_000);
    const expired = await lua(withUrl(script.id), { KW_KEY: key, KW_HWID: 'lib-pc' });
    expect(expired.stdout).toBe('CODE\tKEY_EXPIRED\tThe key has expired\tfalse\n');
    const unknown = await lua(withUrl('3f2504e0-4f89-11d3-9a0c-0305e82c3301'), { KW_KEY: key, KW_HWID: 'lib-pc' });
    expect(unknown.stdout).toBe('CODE\tNOT_FOUND\tScript not found\tnil\n');
  });

  it('decodes JSON escapes and nested values with its own decoder', async () => {
    const run = await lua(
      `LIBRARY_URL = "${t().ctx.config.baseUrl}/api/v1/lua/library.lua"
local api = loadstring(game:HttpGet(LIBRARY_URL))()
local v = api.json.decode('{"n":null,"a":[1,2.5,-3e2,true,false],"s":"q\\\\"\\\\\\\\\\\\/\\\\n\\\\u00e9\\\\ud83d\\\\ude00","o":{}}')
print(#v.a, v.a[2], v.a[3], v.a[4], v.a[5], v.s, next(v.o), v.n == nil)`,
      {},
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('5\t2.5\t-300\ttrue\tfalse\tq"\\/\né😀\tnil\ttrue\n');
  });
});
