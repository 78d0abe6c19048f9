import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { serviceExecutions, uploadScript } from '../scripts/script-helpers.ts';
import { ROBLOX_STANDIN } from './roblox-standin.ts';

/**
 * Executors (contract §29) in the real interpreters, against this app on loopback: the loader, the library and the
 * session client send what the stand-in's identifyexecutor() says, and a script's rule refuses a run with its sentence,
 * binding nothing and spending nothing.
 */
const t = useTestApp();
let dir: string;
let runs = 0;

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  t().ctx.config.baseUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-lua-executors-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `main` in the stand-in and answers everything it printed. */
function run(interpreter: string, main: string, env: Record<string, string>) {
  const file = join(dir, `run${++runs}.lua`);
  writeFileSync(file, `${ROBLOX_STANDIN}\nlocal BASE = "${t().ctx.config.baseUrl}"\nrun(function()\n${main}\nend, 20)\n`);
  const child = spawn(interpreter, [file], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<string>((resolve) => child.on('close', () => resolve(output)));
}

const loader = (scriptId: string) => `loadstring(game:HttpGet(BASE .. "/api/v1/vss/loader/${scriptId}"))()`;

async function executors(s: SeededService) {
  await t().ctx.analytics.flush(t().ctx.db);
  const res = await call(t().app, 'GET', '/api/v1/keys/api/analytics/executors', { key: s.serviceKey });
  expect(res.status).toBe(200);
  return res.body.data.items as Array<{
    executor: string;
    executions: number;
    valid: number;
    refused: Record<string, number>;
    peakSessions: number;
  }>;
}

describe.each(['lua5.1', 'luajit'])('executors in %s', (interpreter) => {
  it("sends the stand-in's identifyexecutor() name and version from the loader and its session", async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'live', code: 'print("RAN")', heartbeat: true });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const output = await run(interpreter, `${loader(script.id)}\nos.exit(0)`, {
      KW_KEY: key!,
      KW_HWID: `pc-${interpreter}`,
      KW_EXECUTOR_NAME: 'Wave',
      KW_EXECUTOR_VERSION: '2.1.0',
    });
    expect(output).toContain('RAN');
    // The session the loader opened before the fetch carried the name too: its peak is counted under it.
    expect(await executors(s)).toEqual([
      expect.objectContaining({ executor: 'Wave 2.1.0', executions: 1, valid: 1, refused: {}, peakSessions: 1 }),
    ]);
  }, 60_000);

  it('falls back to getexecutorname(), and sends it from the library check', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'lib', code: 'print("RAN")' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const main = `
identifyexecutor = nil
getexecutorname = function() return "Solara" end
local api = loadstring(game:HttpGet(BASE .. "/api/v1/lua/library.lua"))()
api.script_id = "${script.id}"
print("CODE:" .. api.check_key(script_key).code)
os.exit(0)`;
    expect(await run(interpreter, main, { KW_KEY: key!, KW_HWID: `lib-${interpreter}` })).toContain('CODE:KEY_VALID');
    expect(await executors(s)).toEqual([expect.objectContaining({ executor: 'Solara', executions: 0, valid: 1 })]);
  }, 60_000);

  it('refuses a denied executor with the sentence, binds no HWID and spends no execution', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, {
      name: 'picky',
      code: 'print("RAN")',
      heartbeat: true,
      executors: { deny: ['standin'] },
    });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const output = await run(interpreter, loader(script.id), { KW_KEY: key!, KW_HWID: `denied-${interpreter}` });
    expect(output).toContain('Keyward: EXECUTOR_UNSUPPORTED: This script does not support Standin 1.0.');
    expect(output).not.toContain('RAN');
    // Still an unused generated key: nothing redeemed, nothing bound.
    const binding = await call(t().app, 'GET', `/api/v1/keys/api/key/binding?key=${key}&type=generated`, { key: s.serviceKey });
    expect(binding.body.data).toMatchObject({ bound: false, hwid: null });
    expect(await serviceExecutions(t().app, s)).toBe(0);
    expect(await executors(s)).toEqual([
      expect.objectContaining({ executor: 'Standin 1.0', executions: 0, valid: 0, refused: { EXECUTOR_UNSUPPORTED: 1 } }),
    ]);
  }, 60_000);

  it('names the executors an allow rule runs on, through the library too', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'allow', code: 'print("RAN")', executors: { allow: ['Wave', 'Synapse Z'] } });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const main = `
local api = loadstring(game:HttpGet(BASE .. "/api/v1/lua/library.lua"))()
api.script_id = "${script.id}"
local status = api.check_key(script_key)
print("CHECK:" .. status.code .. ": " .. status.message)
${loader(script.id)}`;
    const output = await run(interpreter, main, { KW_KEY: key!, KW_HWID: `allow-${interpreter}` });
    const sentence = 'This script does not support Standin 1.0. It runs on: Wave, Synapse Z.';
    expect(output).toContain(`CHECK:EXECUTOR_UNSUPPORTED: ${sentence}`);
    expect(output).toContain(`Keyward: EXECUTOR_UNSUPPORTED: ${sentence}`);
    expect(output).not.toContain('RAN');
    const binding = await call(t().app, 'GET', `/api/v1/keys/api/key/binding?key=${key}&type=generated`, { key: s.serviceKey });
    expect(binding.body.data.bound).toBe(false);
  }, 60_000);
});
