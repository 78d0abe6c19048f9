// Contract §27: an import's preview (dryRun) writes nothing and says what the import would store; the import counts
// banned and expired keys as such (the dashboard's toast takes these counts); Luarmor's last_reset is kept, so the buyer's reset cooldown continues.
import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/keys/import';
const sec = (ms: number) => Math.floor(ms / 1000);
const tag = () => `${process.pid}${Math.random().toString(36).slice(2, 8)}`;

function luarmorUser(user_key: string, extra: Record<string, unknown> = {}) {
  return {
    user_key,
    identifier: '',
    identifier_type: 'hwid',
    discord_id: '',
    note: '',
    status: 'reset',
    last_reset: 0,
    total_resets: 0,
    auth_expire: -1,
    banned: 0,
    ban_reason: '',
    ban_expire: -1,
    total_executions: 0,
    key_days: -1,
    ...extra,
  };
}

async function rowsOf(serviceId: string) {
  const db = t().ctx.db;
  const count = async (table: 'activeKeys' | 'generatedKeys' | 'keyHwids' | 'auditLog') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('serviceId', '=', serviceId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    active: await count('activeKeys'),
    generated: await count('generatedKeys'),
    hwids: await count('keyHwids'),
    audit: await count('auditLog'),
  };
}

describe('import preview (dryRun)', () => {
  it('answers 200 with counts, fields, a sample and the keys already there, and writes no key, HWID or audit entry', async () => {
    const s = await seedService(t().ctx);
    const id = tag();
    const now = t().ctx.clock();
    const already = `prev_old_${id}`;
    const made = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'luarmor', data: [luarmorUser(already)] } });
    expect(made.status).toBe(201);
    const before = await rowsOf(s.id);
    const data = [
      luarmorUser(`prev_act_${id}`, { identifier: 'hwid-a', total_executions: 7, last_reset: sec(now - 3600_000), note: 'paid' }),
      luarmorUser(`prev_gen_${id}`),
      luarmorUser(`prev_ban_${id}`, { identifier: 'hwid-b', banned: 1, ban_reason: 'chargeback' }),
      luarmorUser(`prev_exp_${id}`, { identifier: 'hwid-c', auth_expire: sec(now - 86_400_000) }),
      luarmorUser(already),
      luarmorUser(`prev_six_${id}`),
    ];
    const answer = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'luarmor', data, dryRun: true } });
    expect(answer.status).toBe(200);
    const preview = answer.body.data;
    expect(preview.dryRun).toBe(true);
    expect(preview.format).toBe('luarmor');
    expect(preview.counts).toEqual({ active: 1, generated: 3, banned: 1, expired: 1 });
    expect(preview.fields).toEqual(expect.arrayContaining(['user_key', 'identifier', 'last_reset', 'total_executions', 'banned']));
    expect(preview.ignored).toEqual(expect.arrayContaining(['status', 'identifier_type']));
    expect(preview.sample).toHaveLength(5);
    expect(preview.sample[0]).toMatchObject({
      key: `prev_act_${id}`,
      type: 'active',
      status: 'active',
      hwids: ['hwid-a'],
      note: 'paid',
      executions: 7,
      hwidResetAt: new Date(sec(now - 3600_000) * 1000).toISOString(),
    });
    expect(preview.sample[2]).toMatchObject({ status: 'banned', banReason: 'chargeback' });
    expect(preview.existing).toEqual([already]);
    expect(await rowsOf(s.id)).toEqual(before);
  });

  it('with onDuplicate skip, counts and samples only what the import would store', async () => {
    const s = await seedService(t().ctx);
    const id = tag();
    const already = `prev_skip_${id}`;
    await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'luarmor', data: [luarmorUser(already, { identifier: 'h' })] } });
    const data = [luarmorUser(already, { identifier: 'h' }), luarmorUser(`prev_new_${id}`, { banned: 1 })];
    const answer = await call(t().app, 'POST', URL, {
      key: s.serviceKey,
      body: { format: 'luarmor', data, dryRun: true, onDuplicate: 'skip' },
    });
    expect(answer.body.data.counts).toEqual({ active: 0, generated: 0, banned: 1, expired: 0 });
    expect(answer.body.data.sample.map((k: { key: string }) => k.key)).toEqual([`prev_new_${id}`]);
    expect(answer.body.data.existing).toEqual([already]);
  });

  it('refuses an invalid record with the same 400 as the import, and writes nothing', async () => {
    const s = await seedService(t().ctx);
    const before = await rowsOf(s.id);
    const answer = await call(t().app, 'POST', URL, {
      key: s.serviceKey,
      body: { format: 'luarmor', dryRun: true, data: [luarmorUser('short'), luarmorUser(`prev_ok_${tag()}`)] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0]).toMatchObject({ index: 0, field: 'user_key' });
    expect(await rowsOf(s.id)).toEqual(before);
  });

  it('names a Keyward CSV header as its fields', async () => {
    const s = await seedService(t().ctx);
    const header =
      'key,type,status,hwids,note,isPremium,noHwidValidation,maxHwids,expiresAt,chatId,executions,createdAt,activatedAt,lastUsedAt';
    const csv = `${header}\nprev_csv_${tag()},generated,active,,,false,false,1,,,0,,,\n`;
    const answer = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'keyward-csv', data: csv, dryRun: true } });
    expect(answer.status).toBe(200);
    expect(answer.body.data.fields).toEqual(header.split(','));
    expect(answer.body.data.counts).toEqual({ active: 0, generated: 1, banned: 0, expired: 0 });
  });
});

describe('the import itself', () => {
  it("keeps Luarmor's last_reset as the key's last HWID reset, so the reset cooldown continues", async () => {
    const s = await seedService(t().ctx);
    const key = `imp_reset_${tag()}`;
    const resetAt = sec(t().ctx.clock() - 3600_000);
    const data = [luarmorUser(key, { identifier: 'hwid-a', last_reset: resetAt, total_resets: 2 })];
    expect((await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'luarmor', data } })).status).toBe(201);
    const row = await t()
      .ctx.db.selectFrom('activeKeys')
      .select(['hwidResetAt', 'hwidResetCount'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(Number(row.hwidResetAt)).toBe(resetAt * 1000);
    expect(row.hwidResetCount).toBe(2);
    // The buyer reset an hour ago; the free cooldown is 24 hours, so the reset page refuses for now.
    const reset = await call(t().app, 'POST', '/api/v1/keys/reset-hwid', { key: s.serviceKey, body: { key } });
    expect(reset.status).toBe(429);
    expect(reset.body.code).toBe('HWID_RESET_COOLDOWN');
    expect(reset.body.retryAfter).toBeGreaterThan(22 * 3600);
  });
});

describe("imported executions in analytics' all-time total", () => {
  const status = async (serviceKey: string) => {
    const answer = await call(t().app, 'GET', '/api/v1/keys/api/service/status', { key: serviceKey });
    expect(answer.status).toBe(200);
    return answer.body.data.totalExecutions as number;
  };

  it('adds the executions of the keys an import stores, not those of a preview or of a skipped key', async () => {
    const s = await seedService(t().ctx);
    const id = tag();
    const already = `exec_old_${id}`;
    const first = [luarmorUser(already, { identifier: 'hwid-old', total_executions: 40 })];
    expect((await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'luarmor', data: first } })).status).toBe(201);
    expect(await status(s.serviceKey)).toBe(40);
    const data = [
      luarmorUser(`exec_a_${id}`, { identifier: 'hwid-a', total_executions: 1234 }),
      luarmorUser(`exec_b_${id}`, { total_executions: 5 }),
      luarmorUser(`exec_c_${id}`, { identifier: 'hwid-c', banned: 1, total_executions: 61 }),
      luarmorUser(`exec_d_${id}`),
      luarmorUser(already, { identifier: 'hwid-old', total_executions: 40 }),
    ];
    const preview = await call(t().app, 'POST', URL, {
      key: s.serviceKey,
      body: { format: 'luarmor', data, dryRun: true, onDuplicate: 'skip' },
    });
    expect(preview.status).toBe(200);
    expect(await status(s.serviceKey)).toBe(40);
    const made = await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'luarmor', data, onDuplicate: 'skip' } });
    expect(made.status).toBe(201);
    expect(await status(s.serviceKey)).toBe(40 + 1234 + 5 + 61);
    const stored = await t().ctx.db.selectFrom('services').select('executions').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(Number(stored.executions)).toBe(1340);
  });

  it('counts each key once when two instances import the same file at once while executions are counted', async () => {
    const s = await seedService(t().ctx);
    const id = tag();
    const data = Array.from({ length: 150 }, (_, i) => luarmorUser(`exec_race_${id}_${i}`, { identifier: `pc-${i}`, total_executions: 3 }));
    const second = await anotherInstance(t());
    try {
      const body = { format: 'luarmor', data, onDuplicate: 'skip' };
      const answers = await Promise.all([
        call(t().app, 'POST', URL, { key: s.serviceKey, body }),
        call(second, 'POST', URL, { key: s.serviceKey, body }),
        ...Array.from({ length: 10 }, (_, i) =>
          call(i % 2 ? second : t().app, 'POST', '/api/v1/keys/api/execution', { key: s.serviceKey, body: {} }),
        ),
      ]);
      expect(answers.map((a) => a.status)).toEqual([201, 201, ...Array<number>(10).fill(200)]);
      expect(answers[0]!.body.data.imported.active + answers[1]!.body.data.imported.active).toBe(150);
      expect(await status(s.serviceKey)).toBe(150 * 3 + 10);
    } finally {
      await second.close();
    }
  });

  it('adds nothing when the import is refused', async () => {
    const s = await seedService(t().ctx);
    const id = tag();
    const data = [luarmorUser(`exec_ok_${id}`, { identifier: 'h', total_executions: 9 }), luarmorUser('short', { total_executions: 3 })];
    expect((await call(t().app, 'POST', URL, { key: s.serviceKey, body: { format: 'luarmor', data } })).status).toBe(400);
    expect(await status(s.serviceKey)).toBe(0);
  });
});
