import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLog, type AppContext } from '../../src/context.ts';
import { createContext } from '../../src/modules/state.ts';
import { generateKeys as generate } from '../../src/modules/keys/keys.service.ts';
import { replaceHwids } from '../../src/modules/keys/keys.repository.ts';
import { SYSTEM_ACTOR } from '../../src/modules/audit/actor.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

/**
 * The race the contract names: many HWIDs validating one fresh generated key at once, across
 * separate server processes on PostgreSQL (one process on SQLite). Exactly one HWID may win.
 */
const CONCURRENT = 200;
const INSTANCES = testDialect() === 'postgres' ? 2 : 1;

let database: TestDatabase;
let servers: ServerProcess[] = [];
let ctx: AppContext;

beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({ KEYWARD_SECRET: TEST_SECRET, ...database.env });
  ctx = await createContext({ config, database: database.handle, ownsDatabase: false, log: silentLog, role: 'cli' });
  const env = { ...database.env, KEYWARD_SECRET: TEST_SECRET, RATE_LIMIT_CLIENT_PER_MINUTE: '0', LOG_LEVEL: 'warn' };
  // Started one after another so they do not race each other's migration check.
  for (let i = 0; i < INSTANCES; i++) servers.push(await startServerProcess(env));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  await database?.drop();
});

describe(`${CONCURRENT} concurrent validations of one fresh key on ${INSTANCES} process(es) (${testDialect()})`, () => {
  it('lets exactly one HWID redeem the key; every other HWID is told KEY_HWID_LOCKED', async () => {
    const service = await seedService(ctx);
    const [row] = await generate(ctx, service.id, { expirationType: 'byDays', days: 30 }, SYSTEM_ACTOR);
    const key = row!.key;

    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const server = servers[i % servers.length]!;
        const hwid = `hwid-${i}`;
        const res = await fetch(`${server.url}/api/v1/keys/validate?service=${service.identifier}&key=${key}&hwid=${hwid}`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { data: { valid: boolean; code: string } };
        return { hwid, ...body.data };
      }),
    );

    const winners = answers.filter((a) => a.valid);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.code).toBe('KEY_VALID');
    expect(answers.filter((a) => a.code === 'KEY_HWID_LOCKED')).toHaveLength(CONCURRENT - 1);

    const stored = await ctx.db.selectFrom('activeKeys').select(['hwid']).where('key', '=', key).executeTakeFirstOrThrow();
    expect(stored.hwid).toBe(winners[0]!.hwid);
    const leftover = await ctx.db.selectFrom('generatedKeys').select('key').where('key', '=', key).execute();
    expect(leftover).toHaveLength(0);
  });

  it('binds exactly one HWID when an already-redeemed but unbound key is raced', async () => {
    const service = await seedService(ctx);
    const [row] = await generate(ctx, service.id, { expirationType: 'lifetime' }, SYSTEM_ACTOR);
    const key = row!.key;
    // Redeem it, then clear the binding so the race is on the conditional bind of an active key.
    const first = await fetch(`${servers[0]!.url}/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=setup`);
    expect(((await first.json()) as { data: { valid: boolean } }).data.valid).toBe(true);
    await replaceHwids(ctx.db, service.id, key, []);

    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const res = await fetch(`${servers[i % servers.length]!.url}/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=pc-${i}`);
        return { hwid: `pc-${i}`, ...((await res.json()) as { data: { valid: boolean; code: string } }).data };
      }),
    );
    const winners = answers.filter((a) => a.valid);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.code === 'KEY_HWID_LOCKED')).toHaveLength(CONCURRENT - 1);
    const stored = await ctx.db.selectFrom('activeKeys').select(['hwid']).where('key', '=', key).executeTakeFirstOrThrow();
    expect(stored.hwid).toBe(winners[0]!.hwid);
  });

  it('with maxHwids N, exactly N of many distinct HWIDs racing on every instance get bound (§7.1)', async () => {
    const service = await seedService(ctx);
    const slots = 5;
    const [row] = await generate(ctx, service.id, { expirationType: 'lifetime', maxHwids: slots }, SYSTEM_ACTOR);
    const key = row!.key;

    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const res = await fetch(
          `${servers[i % servers.length]!.url}/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=multi-${i}`,
        );
        expect(res.status).toBe(200);
        return { hwid: `multi-${i}`, ...((await res.json()) as { data: { valid: boolean; code: string } }).data };
      }),
    );
    const winners = answers.filter((a) => a.valid).map((a) => a.hwid);
    expect(winners).toHaveLength(slots);
    expect(answers.filter((a) => a.code === 'KEY_HWID_LOCKED')).toHaveLength(CONCURRENT - slots);

    const stored = await ctx.db.selectFrom('activeKeys').select(['hwid', 'hwidCount']).where('key', '=', key).executeTakeFirstOrThrow();
    expect(stored.hwidCount).toBe(slots);
    const bound = await ctx.db.selectFrom('keyHwids').select(['hwid', 'position']).where('key', '=', key).orderBy('position').execute();
    expect(bound.map((b) => b.hwid).sort()).toEqual([...winners].sort());
    expect(bound.map((b) => b.position)).toEqual([1, 2, 3, 4, 5]);
    expect(stored.hwid).toBe(bound[0]!.hwid);

    // The winners stay valid, a newcomer is still refused.
    for (const hwid of winners) {
      const res = await fetch(`${servers[0]!.url}/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=${hwid}`);
      expect(((await res.json()) as { data: { code: string } }).data.code).toBe('KEY_VALID');
    }
    const late = await fetch(`${servers[0]!.url}/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=latecomer`);
    expect(((await late.json()) as { data: { code: string } }).data.code).toBe('KEY_HWID_LOCKED');
  });

  it('the same HWID racing with itself takes one slot', async () => {
    const service = await seedService(ctx);
    const [row] = await generate(ctx, service.id, { expirationType: 'lifetime', maxHwids: 2 }, SYSTEM_ACTOR);
    const key = row!.key;
    const setup = await fetch(`${servers[0]!.url}/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=first`);
    expect(((await setup.json()) as { data: { valid: boolean } }).data.valid).toBe(true);

    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await fetch(`${servers[i % servers.length]!.url}/api/v1/keys/validate?service=${service.id}&key=${key}&hwid=twin`);
        return ((await res.json()) as { data: { code: string } }).data.code;
      }),
    );
    expect(answers.every((c) => c === 'KEY_VALID')).toBe(true);
    const stored = await ctx.db.selectFrom('activeKeys').select('hwidCount').where('key', '=', key).executeTakeFirstOrThrow();
    expect(stored.hwidCount).toBe(2);
    const bound = await ctx.db.selectFrom('keyHwids').select('hwid').where('key', '=', key).orderBy('position').execute();
    expect(bound.map((b) => b.hwid)).toEqual(['first', 'twin']);
  });
});
