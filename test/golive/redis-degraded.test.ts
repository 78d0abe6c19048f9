import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/free-port.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLog, type AppContext } from '../../src/context.ts';
import { createContext } from '../../src/modules/state.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { runDoctor } from '../helpers/doctor.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { seedService } from '../helpers/seed.ts';
import { sweepChatRoles } from '../../src/modules/discord-role/discord-role.service.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

// Contract §22 "Start and signatures": Redis is an add-on. With REDIS_URL at a port where nothing answers the server
// starts and serves, says so in one sentence naming REDIS_URL, /healthz says redis is unreachable, doctor calls it an
// error; doctor also checks each service's Discord buyer role.
let database: TestDatabase;
let ctx: AppContext;
let server: ServerProcess;
let deadRedis = '';
const REDIS_URL = process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const doctor = (env: Record<string, string>) => runDoctor({ ...database.env, BASE_URL: server.url, ...env });

beforeAll(async () => {
  database = await createTestDatabase();
  ctx = await createContext({
    config: loadConfig({ KEYWARD_SECRET: TEST_SECRET, ...database.env }),
    database: database.handle,
    ownsDatabase: false,
    log: silentLog,
    role: 'cli',
  });
  // A port below 1024: listen(0) never hands one out, so no other test's server can take it while this file runs (a
  // freed ephemeral port could be, and doctor then met that server instead of a refusal).
  deadRedis = 'redis://127.0.0.1:1';
  const port = await freePort();
  server = await startServerProcess({
    KEYWARD_SECRET: TEST_SECRET,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    REDIS_URL: deadRedis,
    ...database.env,
  });
});

afterAll(async () => {
  await server?.stop();
  await ctx?.close();
  await database?.drop();
});

describe('REDIS_URL where nothing answers', () => {
  it('starts, serves, and answers /healthz 200 with redis unreachable', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', redis: 'unreachable' });
    const spec = await fetch(`${server.url}/openapi.json`);
    expect(spec.status).toBe(200);
  });

  it('counts an executor’s calls in this instance meanwhile (the client budget never goes unlimited)', async () => {
    const s = await seedService(ctx);
    const validate = () => fetch(`${server.url}/api/v1/keys/validate?service=${s.identifier}&key=nope&hwid=pc`);
    const first = await validate();
    expect(first.status).toBe(200);
    const remaining = Number(first.headers.get('ratelimit-remaining'));
    expect(remaining).toBeGreaterThan(0);
    expect(Number((await validate()).headers.get('ratelimit-remaining'))).toBe(remaining - 1);
  });

  it('says so in one sentence naming REDIS_URL, not once per reconnect', async () => {
    await server.waitFor((lines) => lines.some((line) => line.includes('REDIS_URL')));
    // ioredis retries every few hundred ms at first: wait for several more tries' worth of output (a request's log line).
    for (let i = 0; i < 20; i += 1) await fetch(`${server.url}/healthz`);
    const sentences = server.lines.filter((line) => line.includes('REDIS_URL'));
    expect(sentences).toHaveLength(1);
    expect(sentences[0]).toMatch(/Redis at REDIS_URL does not answer; serving anyway/);
    expect(server.lines.some((line) => line.includes('"redis error"'))).toBe(false);
  });

  it('is an error for keyward doctor', async () => {
    const { code, lines } = await doctor({ REDIS_URL: deadRedis });
    expect(code).toBe(1);
    expect(
      lines.some((line) => /^error {2}REDIS_URL \(127\.0\.0\.1:\d+\) does not answer \(ECONNREFUSED\)/.test(line)),
      lines.join('\n'),
    ).toBe(true);
  });
});

describe('a Redis that may evict keys', () => {
  it('is a warning for keyward doctor, naming the policy; the default policy is not', async () => {
    const port = await freePort();
    // A Redis of its own, full at 64 MB and dropping the least used keys then, as a hosted cache often is.
    const evicting = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory',
        '64mb',
        '--maxmemory-policy',
        'allkeys-lru',
      ],
      { stdio: 'ignore' },
    );
    try {
      // It takes a moment to listen: the probe retries until it answers.
      const probe = new Redis(`redis://127.0.0.1:${port}`, { retryStrategy: (times) => (times > 50 ? null : 100) });
      probe.on('error', () => {});
      await probe.ping();
      probe.disconnect();
      const { lines } = await doctor({ REDIS_URL: `redis://127.0.0.1:${port}` });
      const warning = lines.find((line) => line.startsWith('warn ') && line.includes('maxmemory-policy'));
      expect(warning, lines.join('\n')).toMatch(
        /may evict keys when full \(maxmemory-policy allkeys-lru\).*set maxmemory-policy noeviction/,
      );
    } finally {
      evicting.kill();
    }
    // The test Redis keeps Redis's default (noeviction).
    const { lines } = await doctor({ REDIS_URL: REDIS_URL });
    expect(
      lines.some((line) => line.includes('maxmemory-policy')),
      lines.join('\n'),
    ).toBe(false);
    expect(
      lines.some((line) => /^ok +REDIS_URL .* answers/.test(line)),
      lines.join('\n'),
    ).toBe(true);
  });
});

describe("keyward doctor and a service's Discord buyer role", () => {
  it('names what is missing, and a grant Discord refused', async () => {
    const half = await seedService(ctx);
    await ctx.db.updateTable('services').set({ chatRoleId: '222222222222222222' }).where('id', '=', half.id).execute();
    const refused = await seedService(ctx);
    await ctx.db
      .updateTable('services')
      .set({ chatRoleId: '222222222222222222', chatBotTokenSealed: ctx.sealer.seal('token'), chatGuildId: '111111111111111111' })
      .where('id', '=', refused.id)
      .execute();
    // The buyer holds a valid key: the server process on this database sweeps the role every 30 s, and would revoke
    // (and forget) a member without one before the doctor reads it.
    const generated = await fetch(`${server.url}/api/v1/keys/api/generate`, {
      method: 'POST',
      headers: { 'x-api-key': refused.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ expirationType: 'lifetime', chatId: '333333333333333333' }),
    });
    expect(generated.status).toBe(201);
    await ctx.db
      .insertInto('discordRoleMembers')
      .values({
        serviceId: refused.id,
        chatId: '333333333333333333',
        grantedAt: 1,
        refusals: 1,
        // Not due, so that sweep does not take the retry and queue the grant again meanwhile.
        retryAt: Date.now() + 3_600_000,
        lastError: 'Discord refused (403): the bot needs the Manage Roles permission',
      })
      .execute();
    const name = async (id: string) =>
      (await ctx.db.selectFrom('services').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name;
    const [halfName, refusedName] = [await name(half.id), await name(refused.id)];
    // As that sweep may have run by now (it did in a slow CI run); it must leave the refusal for the doctor.
    await sweepChatRoles(ctx);
    const { code, lines } = await doctor({});
    expect(code).toBe(1);
    expect(lines).toContain(
      `error  service "${halfName}" (${half.identifier}): the Discord buyer role is half set up: it lacks the bot token, a Discord server bound to the service, so no role is given`,
    );
    expect(lines).toContain(
      `error  service "${refusedName}" (${refused.identifier}): Discord refused the buyer role for 1 buyer(s) (Discord refused (403): the bot needs the Manage Roles permission); fix it in Discord, then press Save Discord role`,
    );
    await ctx.db
      .updateTable('discordRoleMembers')
      .set({ confirmedAt: 3, refusals: 0, retryAt: null })
      .where('serviceId', '=', refused.id)
      .execute();
    const again = await doctor({});
    expect(again.lines).toContain(
      `ok     service "${refusedName}" (${refused.identifier}): the Discord buyer role is set up (bot token, role id, server)`,
    );
  });
});
