import { expect, it } from 'vitest';
import { writesOf } from '../../src/db/database.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { generateKeys, seedService } from '../helpers/seed.ts';
import { openSession, sessionsOf } from './session-helpers.ts';
import { sessionSuite } from './suite.ts';

// Live sessions kept in the database (no REDIS_URL).
sessionSuite(() => ({}));

it('writes nothing to the database on a heartbeat: the batch is written by the flush', async () => {
  const t = await startTestApp();
  try {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const sessionId = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const writes: string[] = [];
    const stop = writesOf(t.ctx.db)!.listen((write) => writes.push(write.table));
    t.clock.advance(10_000);
    for (let i = 0; i < 5; i++) expect((await sessionsOf(s).heartbeat(t.app, sessionId)).status).toBe(200);
    expect(writes).toEqual([]);
    stop();
    await t.ctx.liveSessions.flush(t.clock.now);
    const row = await t.ctx.db.selectFrom('liveSessions').select('lastSeenAt').where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(row.lastSeenAt).toBe(t.clock.now);
  } finally {
    await t.app.close();
    await t.database.drop();
  }
});

/** The end counter of a service (migration 0028); 0 when it has none yet (SQLite's server makes none at an open). */
const epochOf = async (t: TestApp, serviceId: string) => {
  const row = await t.ctx.db.selectFrom('liveSessionEpochs').select('seq').where('serviceId', '=', serviceId).executeTakeFirst();
  return Number(row?.seq ?? 0);
};

it("moves the service's end counter with every end and close, and only then", async () => {
  const t = await startTestApp();
  try {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const api = sessionsOf(s);
    const first = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const second = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const start = await epochOf(t, s.id);
    expect((await api.heartbeat(t.app, first)).status).toBe(200);
    expect((await api.kill(t.app, { sessionId: 'not-a-session' })).body.data).toEqual({ ended: 0 });
    expect(await epochOf(t, s.id)).toBe(start);
    expect((await api.kill(t.app, { sessionId: first })).body.data).toEqual({ ended: 1 });
    expect(await epochOf(t, s.id)).toBe(start + 1);
    expect((await api.end(t.app, second)).body.data).toEqual({ ended: true });
    expect(await epochOf(t, s.id)).toBe(start + 2);
  } finally {
    await t.app.close();
    await t.database.drop();
  }
});

// PostgreSQL: a heartbeat's batch reads its services' end counters, not its sessions' rows (docs/sessions.md). On
// SQLite the server hears every end in-process and never reads the counters, so there is nothing to see there.
it('on PostgreSQL, answers a heartbeat from the row it keeps until its service ends a session', async () => {
  if (testDialect() === 'sqlite') return;
  const t = await startTestApp();
  try {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const api = sessionsOf(s);
    const sessionId = await openSession(t.app, s, { key, hwid: 'pc-1' });
    expect((await t.ctx.db.selectFrom('liveSessionEpochs').select('seq').where('serviceId', '=', s.id).execute()).length).toBe(1);
    expect((await api.heartbeat(t.app, sessionId)).status).toBe(200);
    // Behind the store's back: the row goes, the counter stands still, so the kept row still answers.
    await t.ctx.db.deleteFrom('liveSessions').where('id', '=', sessionId).execute();
    expect((await api.heartbeat(t.app, sessionId)).status).toBe(200);
    await t.ctx.db.updateTable('liveSessionEpochs').set({ seq: 1 }).where('serviceId', '=', s.id).execute();
    const beat = await api.heartbeat(t.app, sessionId);
    expect(beat.status).toBe(410);
    expect(beat.body).toMatchObject({ code: 'SESSION_ENDED', reason: 'TIMED_OUT' });
  } finally {
    await t.app.close();
    await t.database.drop();
  }
});
