import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { generateKeys, seedService } from '../helpers/seed.ts';
import { fetchScript, uploadScript } from '../scripts/script-helpers.ts';

// Fetches count executions in memory; the flush job adds them to the stored counters (modules/loader/execution-counter.ts).
const t = useTestApp();

async function stored(serviceId: string, key: string) {
  const db = t().ctx.db;
  const service = await db
    .selectFrom('services')
    .select(['executions', 'lastActiveAt'])
    .where('id', '=', serviceId)
    .executeTakeFirstOrThrow();
  const row = await db.selectFrom('activeKeys').select(['executions', 'lastUsedAt']).where('key', '=', key).executeTakeFirstOrThrow();
  return {
    service: Number(service.executions),
    lastActiveAt: service.lastActiveAt,
    key: Number(row.executions),
    lastUsedAt: row.lastUsedAt,
  };
}

describe('fetch executions', () => {
  it('writes nothing on the fetch itself, then adds every instance’s counts, the last time winning', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print("x")' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    // Instances whose flush job would not run during the test: only the flushes below write.
    const quiet = { ...t().config, analyticsFlushMs: 3_600_000 };
    const one = await anotherInstance(t(), quiet);
    const second = await anotherInstance(t(), quiet);
    try {
      const first = t().clock.now;
      for (let i = 0; i < 3; i++) expect((await fetchScript(one, script.id, { key: key!, hwid: 'pc-1' })).status).toBe(200);
      t().clock.advance(60_000);
      for (let i = 0; i < 2; i++) expect((await fetchScript(second, script.id, { key: key!, hwid: 'pc-1' })).status).toBe(200);
      // A refused fetch counts nothing.
      expect((await fetchScript(second, script.id, { key: key!, hwid: 'pc-2' })).body).toContain('KEY_HWID_LOCKED');
      expect(await stored(s.id, key!)).toMatchObject({ service: 0, key: 0 });

      await second.ctx.executions.flush(second.ctx.db);
      await one.ctx.executions.flush(one.ctx.db);
      expect(await stored(s.id, key!)).toEqual({ service: 5, lastActiveAt: first + 60_000, key: 5, lastUsedAt: first + 60_000 });
      // Nothing counted twice.
      await one.ctx.executions.flush(one.ctx.db);
      expect((await stored(s.id, key!)).service).toBe(5);
    } finally {
      await one.close();
      await second.close();
    }
  });

  it('writes what it counted when the instance stops', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print("x")' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const second = await anotherInstance(t(), { ...t().config, analyticsFlushMs: 3_600_000 });
    expect((await fetchScript(second, script.id, { key: key!, hwid: 'pc-1' })).status).toBe(200);
    expect((await stored(s.id, key!)).service).toBe(0);
    await second.close();
    expect(await stored(s.id, key!)).toMatchObject({ service: 1, key: 1 });
  });

  it('keeps a batch it is writing in the count a fetch reads, until the write has ended', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print("x")' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const second = await anotherInstance(t(), { ...t().config, analyticsFlushMs: 3_600_000 });
    try {
      for (let i = 0; i < 2; i++) expect((await fetchScript(second, script.id, { key: key!, hwid: 'pc-1' })).status).toBe(200);
      const counter = second.ctx.executions;
      const flushed = counter.flush(second.ctx.db);
      // The flush has taken its batch (its first step was queued before this one) and its transaction has not ended:
      // the stored count may still lack the two, so the count a fetch adds to it holds them with the new one.
      await null;
      counter.count(s.id, key!, t().clock.now);
      expect(counter.pendingFor(s.id, key!)).toBe(3);
      await flushed;
      expect((await stored(s.id, key!)).key).toBe(2);
      expect(counter.pendingFor(s.id, key!)).toBe(1);
    } finally {
      await second.close();
    }
  });
});
