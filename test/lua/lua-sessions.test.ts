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

/**
 * The Lua side of live sessions (contract §18) in the real interpreters, against this app on loopback: the loader
 * (and api.load_script()) opens a session, heartbeats in the background, and ends the run when the seller acts.
 */
const HEARTBEAT_SECONDS = 10;
const t = useTestApp();
let dir: string;
let runs = 0;
let s: SeededService;
let scriptId: string;

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  t().ctx.config.baseUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-lua-sessions-'));
  s = await seedService(t().ctx);
  await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { sessionHeartbeatSeconds: HEARTBEAT_SECONDS } });
  scriptId = (await uploadScript(t().app, s, { name: 'live', code: 'print("RAN")', heartbeat: true })).id;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a run; `output` fills as the program prints, `done` resolves when it exits. */
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
const liveOf = async (key: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/api/sessions?key=${key}`, { key: s.serviceKey })).body.data.total as number;

describe.each(['lua5.1', 'luajit'])('live sessions in %s', (interpreter) => {
  /** Runs `program` until the script runs live, bans its key from outside, and answers what the run printed. */
  const bannedWhileRunning = async (program: string, hwid: string) => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    const running = run(interpreter, program, { KW_KEY: key!, KW_HWID: hwid });
    try {
      await expect.poll(() => running.state.output, { timeout: 30_000, interval: 100 }).toContain('RAN');
      await expect.poll(() => liveOf(key!), { timeout: 5_000 }).toBe(1);
      const bannedAt = Date.now();
      await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, status: 'banned' } });
      const output = await running.done;
      expect(Date.now() - bannedAt).toBeLessThan(2 * HEARTBEAT_SECONDS * 1000);
      return output;
    } finally {
      running.kill();
    }
  };

  it('kicks the player with a sentence within two heartbeat periods of a ban made from outside', async () => {
    expect(await bannedWhileRunning(LOADER, `pc-${interpreter}`)).toContain('KICKED:Your key was banned');
  }, 60_000);

  it('kicks the player on an executor whose only game:HttpGet raises on the 410', async () => {
    expect(await bannedWhileRunning(`only_strict_http_get()\n${LOADER}`, `strict-${interpreter}`)).toContain(
      'KICKED:Your session has ended',
    );
  }, 60_000);

  it('runs nothing when the key is already in use on its maxSessions devices, and says so', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', maxSessions: 1 });
    const opened = await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key, hwid: 'pc-1' } });
    expect(opened.status).toBe(201);
    const output = await run(interpreter, LOADER, { KW_KEY: key!, KW_HWID: 'pc-1' }, 5).done;
    expect(output).toContain('Keyward: SESSION_LIMIT: This key is already running on 1 device, its limit.');
    expect(output).not.toContain('RAN');
  }, 60_000);

  it('calls api.on_session_end(reason) from api.load_script() when the seller ends the session', async () => {
    const [key] = await generateKeys(t().app, s.serviceKey);
    const main = `
local api = loadstring(game:HttpGet(BASE .. "/api/v1/lua/library.lua"))()
api.script_id = SCRIPT_ID
api.on_session_end = function(reason) print("ENDED:" .. reason) os.exit(0) end
api.load_script(script_key)`;
    const running = run(interpreter, main, { KW_KEY: key!, KW_HWID: `lib-${interpreter}` });
    try {
      await expect.poll(() => running.state.output, { timeout: 30_000, interval: 100 }).toContain('RAN');
      await expect.poll(() => liveOf(key!), { timeout: 5_000 }).toBe(1);
      const killedAt = Date.now();
      expect((await call(t().app, 'POST', '/api/v1/keys/api/sessions/kill', { key: s.serviceKey, body: { key } })).body.data).toEqual({
        ended: 1,
      });
      const output = await running.done;
      expect(output).toContain('ENDED:KILLED');
      expect(output).not.toContain('KICKED');
      expect(Date.now() - killedAt).toBeLessThan(2 * HEARTBEAT_SECONDS * 1000);
    } finally {
      running.kill();
    }
  }, 60_000);
});
