import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';
import { configure } from './helpers.ts';

/** api.get_key_link() in a real Lua 5.1 (the shim of test/lua: game:HttpGet through curl). */
const SHIM = `
game = {}
function game:HttpGet(url)
  local pipe = io.popen("curl -sS --max-time 20 '" .. (string.gsub(url, "'", "'\\\\''")) .. "'")
  local body = pipe:read("*a")
  pipe:close()
  return body
end
`;

const t = useTestApp();
let dir: string;
let s: SeededService;
let scriptId: string;

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  t().ctx.config.baseUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-ks-lua-'));
  s = await seedService(t().ctx);
  scriptId = (await uploadScript(t().app, s, { name: 'ks-game', code: 'print("x")' })).id;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lua(id: string) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(
    file,
    `${SHIM}
local api = loadstring(game:HttpGet("${t().ctx.config.baseUrl}/api/v1/lua/library.lua"))()
api.script_id = "${id}"
local link, problem = api.get_key_link()
print(tostring(link), tostring(problem))`,
  );
  return new Promise<string>((resolve, reject) => {
    execFile('lua5.1', [file], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeout: 30_000 }, (error, stdout, stderr) =>
      error || stderr ? reject(new Error(stderr || String(error))) : resolve(stdout),
    );
  });
}

describe('api.get_key_link() in Lua 5.1', () => {
  it('returns nil and a reason while the key system is off, then the get-key page address', async () => {
    expect(await lua(scriptId)).toBe('nil\tThe key system is turned off\n');
    await configure(t().app, s, { enabled: true });
    expect(await lua(scriptId)).toBe(`${t().ctx.config.baseUrl}/key/${s.identifier}\tnil\n`);
  });

  it('returns nil and the server’s message for an unknown script', async () => {
    expect(await lua('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe('nil\tScript not found\n');
  });
});
