import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';
import { ROBLOX_STANDIN } from './roblox-standin.ts';

/** Contract §26 as the buyer reads it, in the real interpreters: a ban's reason, the kick's reason, SESSION_LIMIT. */
const HEARTBEAT_SECONDS = 10;
const t = useTestApp();
let dir: string;
let runs = 0;
let s: SeededService;
let scriptId: string;

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  t().ctx.config.baseUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-buyer-words-'));
  s = await seedService(t().ctx);
  await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { sessionHeartbeatSeconds: HEARTBEAT_SECONDS } });
  scriptId = (await uploadScript(t().app, s, { name: 'live', code: 'print("RAN")', heartbeat: true })).id;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(interpreter: string, main: string, env: Record<string, string>, limitSeconds = 60) {
  const file = join(dir, `run${++runs}.lua`);
  writeFileSync(
    file,
    `${ROBLOX_STANDIN}\nlocal BASE = "${t().ctx.config.baseUrl}"\nlocal SCRIPT_ID = "${scriptId}"\nrun(function()\n${main}\nend, ${limitSeconds})\n`,
  );
  const child = spawn(interpreter, [file], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
  const state = { output: '' };
  child.stdout.on('data', (chunk: Buffer) => (state.output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (state.output += chunk.toString()));
  const done = new Promise<string>((resolve) => child.on('close', () => resolve(state.output)));
  return { state, done, kill: () => child.kill() };
}

const LOADER = 'loadstring(game:HttpGet(BASE .. "/api/v1/vss/loader/" .. SCRIPT_ID))()';
const LIBRARY = `
local api = loadstring(game:HttpGet(BASE .. "/api/v1/lua/library.lua"))()
api.script_id = SCRIPT_ID
api.load_script(script_key)`;
const liveOf = async (key: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/api/sessions?key=${key}`, { key: s.serviceKey })).body.data.total as number;
const hwidsOf = async (key: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/api/key?key=${key}`, { key: s.serviceKey })).body.data.keys[0].hwids as string[];

describe.each(['lua5.1', 'luajit'])('the buyer reads, in %s', (interpreter) => {
  it('the reason of the ban on a blacklisted device', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    const hwid = `banned-${interpreter}`;
    await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid, reason: 'chargeback' } });
    const output = await run(interpreter, LOADER, { KW_KEY: key!, KW_HWID: hwid }, 10).done;
    expect(output).toContain('Keyward: HWID_BLACKLISTED: This device is banned: chargeback');
    expect(output).not.toContain('RAN');
  }, 60_000);

  it('the reason of the ban in the kick of a running script', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    const running = run(interpreter, LOADER, { KW_KEY: key!, KW_HWID: `kick-${interpreter}` });
    try {
      await expect.poll(() => running.state.output, { timeout: 30_000, interval: 100 }).toContain('RAN');
      await expect.poll(() => liveOf(key!), { timeout: 5_000 }).toBe(1);
      await call(t().app, 'PUT', '/api/v1/keys/api/key', {
        key: s.serviceKey,
        body: { key, status: 'banned', banReason: 'sharing the key' },
      });
      expect(await running.done).toContain('KICKED:Your key was banned: sharing the key');
    } finally {
      running.kill();
    }
  }, 60_000);

  it.each([
    ['loader', LOADER],
    ['library', LIBRARY],
  ])(
    'the SESSION_LIMIT sentence through the %s, and the refused device is not bound',
    async (_, program) => {
      const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', maxSessions: 1, maxHwids: 2 });
      const opened = await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key, hwid: 'pc-1' } });
      expect(opened.status).toBe(201);
      const output = await run(interpreter, program, { KW_KEY: key!, KW_HWID: 'laptop' }, 5).done;
      expect(output).toContain(
        `Keyward: SESSION_LIMIT: This key is already running on 1 device, its limit. Close the script there, or wait ${2 * HEARTBEAT_SECONDS} seconds after it stopped.`,
      );
      expect(output).not.toContain('RAN');
      expect(await hwidsOf(key!)).toEqual(['pc-1']);
    },
    60_000,
  );
});
