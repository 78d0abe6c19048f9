// Contract §27 in the real interpreters: the served loader stops a running script after a /luarmor ban and after the
// service is deleted (its heartbeat answers 410 KEY_DELETED, no longer an unknown service's 404).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';
import { ROBLOX_STANDIN } from '../lua/roblox-standin.ts';
import { LuarmorClient } from '../luarmor/luarmor-client.ts';

const HEARTBEAT_SECONDS = 10;
const t = useTestApp();
let dir: string;
let runs = 0;

beforeAll(async () => {
  await t().app.listen({ port: 0, host: '127.0.0.1' });
  t().ctx.config.baseUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'keyward-lua-ends-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function liveService() {
  const s = await seedService(t().ctx);
  await call(t().app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { sessionHeartbeatSeconds: HEARTBEAT_SECONDS } });
  const scriptId = (await uploadScript(t().app, s, { name: 'live', code: 'print("RAN")', heartbeat: true })).id;
  const [key] = await generateKeys(t().app, s.serviceKey);
  return { s, scriptId, key: key! };
}

/** Runs the served loader until the script runs live, does `end` from outside, and answers what the run printed. */
async function endedWhileRunning(interpreter: string, end: (s: SeededService, key: string) => Promise<void>) {
  const { s, scriptId, key } = await liveService();
  const file = join(dir, `run${++runs}.lua`);
  const loader = `loadstring(game:HttpGet("${t().ctx.config.baseUrl}/api/v1/vss/loader/${scriptId}"))()`;
  writeFileSync(file, `${ROBLOX_STANDIN}\nrun(function()\n${loader}\nend, 60)\n`);
  const child = spawn(interpreter, [file], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KW_KEY: key, KW_HWID: `pc-${runs}` } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    await expect.poll(() => output, { timeout: 30_000, interval: 100 }).toContain('RAN');
    await expect
      .poll(async () => (await call(t().app, 'GET', `/api/v1/keys/api/sessions?key=${key}`, { key: s.serviceKey })).body.data.total)
      .toBe(1);
    const endedAt = Date.now();
    await end(s, key);
    await done;
    expect(Date.now() - endedAt).toBeLessThan(2 * HEARTBEAT_SECONDS * 1000);
    return output;
  } finally {
    child.kill();
  }
}

describe.each(['lua5.1', 'luajit'])('the served loader stops in %s', (interpreter) => {
  it('after a ban through /luarmor …/users/blacklist', async () => {
    const output = await endedWhileRunning(interpreter, async (s, key) => {
      const res = await new LuarmorClient(() => t().app, s.serviceKey).blacklist(s.id, key, { ban_reason: 'chargeback' });
      expect(res.status).toBe(200);
    });
    expect(output).toContain('KICKED:Your key was banned');
  }, 60_000);

  it('after the service is deleted', async () => {
    const output = await endedWhileRunning(interpreter, async (s) => {
      expect((await call(t().app, 'DELETE', `/api/v1/services/${s.id}`, { key: s.account.accountKey })).status).toBeLessThan(300);
    });
    expect(output).toContain('KICKED:Your key was deleted');
  }, 60_000);
});
