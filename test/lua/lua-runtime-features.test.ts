import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';
import { FakePlatform } from '../webhook/fake-platform.ts';

/**
 * api.variables() and api.send_webhook() in the real Lua 5.1, against this app on loopback. The shim gives
 * what an executor would: game:HttpGet and request() (curl through io.popen), script_key and gethwid.
 */
const SHIM = `
local function sh(s) return "'" .. (string.gsub(s, "'", "'\\\\''")) .. "'" end
game = {}
function game:HttpGet(url)
  local pipe = io.popen("curl -sS --max-time 20 " .. sh(url))
  local body = pipe:read("*a")
  pipe:close()
  return body
end
function request(options)
  local file = os.tmpname()
  local f = io.open(file, "wb")
  f:write(options.Body)
  f:close()
  local headers = ""
  for name, value in pairs(options.Headers or {}) do headers = headers .. " -H " .. sh(name .. ": " .. value) end
  local pipe = io.popen("curl -sS --max-time 20 -X " .. options.Method .. headers .. " --data-binary @" .. file .. " -w '\\\\n%{http_code}' " .. sh(options.Url))
  local out = pipe:read("*a")
  pipe:close()
  os.remove(file)
  local body, status = string.match(out, "^(.*)\\n(%d+)$")
  return { StatusCode = tonumber(status), Body = body, Success = tonumber(status) < 300 }
end
script_key = os.getenv("KW_KEY")
if os.getenv("KW_HWID") then
  gethwid = function() return os.getenv("KW_HWID") end
end
`;

let platform: FakePlatform;
let t: TestApp;
let dir: string;
let runs = 0;

beforeAll(async () => {
  platform = await new FakePlatform().start();
  t = await startTestApp({ CHAT_WEBHOOK_ORIGINS: platform.origin, WEBHOOK_WORKER_INTERVAL_MS: '0' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  t.ctx.config.baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-lua-rt-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.app.close();
  await t.database.drop();
  await platform.stop();
});

function lua(body: string, env: { KW_KEY?: string; KW_HWID?: string }) {
  const file = join(dir, `run${++runs}.lua`);
  const program = `${SHIM}
local api = loadstring(game:HttpGet("${t.ctx.config.baseUrl}/api/v1/lua/library.lua"))()
api.script_id = "${script.id}"
${body}`;
  writeFileSync(file, program);
  const childEnv: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('lua5.1', [file], { env: childEnv, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let s: SeededService;
let script: { id: string; loadstring: string };
beforeEach(async () => {
  platform.received.length = 0;
  s = await seedService(t.ctx);
  script = await uploadScript(t.app, s, { name: 'rt', code: 'print(1)' });
});

describe('api.variables() in a real Lua 5.1', () => {
  const PRINT_VARS = `
local vars, code = api.variables()
local names = {}
for name in pairs(vars) do names[#names + 1] = name end
table.sort(names)
print("CODE", code)
for _, name in ipairs(names) do print(name, vars[name]) end
`;

  it('returns the variables for a valid key, text decoded exactly', async () => {
    const put = await call(t.app, 'PUT', '/api/v1/keys/api/variables', {
      key: s.serviceKey,
      body: { variables: { motd: 'Update 2 is live — é "quoted"', link: 'https://discord.gg/x' } },
    });
    expect(put.status).toBe(200);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const run = await lua(PRINT_VARS, { KW_KEY: key, KW_HWID: 'lua-pc' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('CODE\tKEY_VALID\nlink\thttps://discord.gg/x\nmotd\tUpdate 2 is live — é "quoted"\n');
  });

  it('returns an empty table and the refusal code for a key locked to another machine', async () => {
    await call(t.app, 'PUT', '/api/v1/keys/api/variables', { key: s.serviceKey, body: { variables: { motd: 'secret' } } });
    const [key] = await generateKeys(t.app, s.serviceKey);
    await lua(PRINT_VARS, { KW_KEY: key, KW_HWID: 'first-pc' });
    const run = await lua(PRINT_VARS, { KW_KEY: key, KW_HWID: 'second-pc' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('CODE\tKEY_HWID_LOCKED\n');
  });
});

describe('api.send_webhook() in a real Lua 5.1', () => {
  beforeEach(async () => {
    const res = await call(t.app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: platform.webhookUrl(), webhookEnabled: true },
    });
    expect(res.status).toBe(200);
  });

  it('posts through the server with mentions off; the script never sees the webhook address', async () => {
    const [key] = await generateKeys(t.app, s.serviceKey);
    const run = await lua(
      `print(api.send_webhook('@everyone "hi" \\\\ from\\nLua', "Lua bot"))
for k, v in pairs(api) do if type(v) == "string" and string.find(v, "webhooks", 1, true) then print("LEAK", k) end end`,
      { KW_KEY: key, KW_HWID: 'lua-pc' },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('true\n');
    expect(platform.received).toHaveLength(1);
    expect(platform.received[0]!.body).toEqual({
      content: '@everyone "hi" \\ from\nLua',
      username: 'Lua bot',
      allowed_mentions: { parse: [] },
    });
  });

  it('returns false with KEY_REFUSED and the validation code for a refused key, posting nothing', async () => {
    const run = await lua(`print(api.send_webhook("hello"))`, { KW_KEY: 'not-a-real-key', KW_HWID: 'lua-pc' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('false\tKEY_REFUSED\tKEY_INCORRECT\n');
    expect(platform.received).toHaveLength(0);
  });

  it('returns false with RATE_LIMITED after 10 messages in a minute', async () => {
    t.clock.now = Math.ceil(t.clock.now / 60_000) * 60_000;
    const [key] = await generateKeys(t.app, s.serviceKey);
    const run = await lua(`for i = 1, 11 do local ok, code = api.send_webhook("m" .. i) print(i, ok, code) end`, {
      KW_KEY: key,
      KW_HWID: 'lua-pc',
    });
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `${i + 1}\ttrue\tnil`));
    expect(lines[10]).toBe('11\tfalse\tRATE_LIMITED');
    expect(platform.received).toHaveLength(10);
  });
});

describe('the kill switch in a real Lua 5.1', () => {
  it('the loadstring of a switched-off script raises the seller message and runs nothing', async () => {
    const off = await call(t.app, 'PUT', `/api/v1/vss/api/scripts/${script.id}`, {
      key: s.serviceKey,
      body: { code: 'print("SHOULD-NOT-RUN")', enabled: false, disabledMessage: 'Maintenance until 18:00 UTC' },
    });
    expect(off.status).toBe(200);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const run = await lua(script.loadstring, { KW_KEY: key, KW_HWID: 'lua-pc' });
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('SHOULD-NOT-RUN');
    expect(run.stderr).toContain('Maintenance until 18:00 UTC');
  });
});
