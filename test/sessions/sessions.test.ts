import { expect, it } from 'vitest';
import { writesOf } from '../../src/db/database.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
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

/** The end counter of a service (migration 0028); 0 when it has none (SQLite's server keeps none). */
const epochOf = async (t: TestApp, serviceId: string) => {
  const row = await t.ctx.db.selectFrom('liveSessionEpochs').select('seq').where('serviceId', '=', serviceId).executeTakeFirst();
  return Number(row?.seq ?? 0);
};
const endOf = (t: TestApp, sessionId: string) =>
  t.ctx.db.selectFrom('liveSessions').select(['endedReason', 'endedSeq']).where('id', '=', sessionId).executeTakeFirstOrThrow();

it("on PostgreSQL, an end or a close moves its service's counter and stamps what it ended; an end of nothing writes nothing", async () => {
  const t = await startTestApp();
  try {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const api = sessionsOf(s);
    const first = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const second = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const counted = testDialect() === 'postgres';
    expect(await epochOf(t, s.id)).toBe(0);
    expect((await api.kill(t.app, { sessionId: 'not-a-session' })).body.data).toEqual({ ended: 0 });
    expect(await epochOf(t, s.id)).toBe(0);
    expect((await api.kill(t.app, { sessionId: first })).body.data).toEqual({ ended: 1 });
    expect(await epochOf(t, s.id)).toBe(counted ? 1 : 0);
    expect((await api.end(t.app, second)).body.data).toEqual({ ended: true });
    expect(await epochOf(t, s.id)).toBe(counted ? 2 : 0);
    const [a, b] = [await endOf(t, first), await endOf(t, second)];
    expect([a.endedReason, b.endedReason]).toEqual(['KILLED', 'TIMED_OUT']);
    expect([a.endedSeq, b.endedSeq].map((seq) => (seq === null ? null : Number(seq)))).toEqual(counted ? [1, 2] : [null, null]);
    expect((await api.end(t.app, second)).body.data).toEqual({ ended: false });
    expect(await epochOf(t, s.id)).toBe(counted ? 2 : 0);
  } finally {
    await t.app.close();
    await t.database.drop();
  }
});

// PostgreSQL: a heartbeat's batch reads its services' end counters, not its sessions' rows, and an end lets go of the
// sessions it stamped only (docs/sessions.md). On SQLite the server hears every end in-process and never reads the
// counters, so there is nothing to see there.
it('on PostgreSQL, answers heartbeats from the rows it keeps, and an end on another instance lets go of its own sessions only', async () => {
  if (testDialect() === 'sqlite') return;
  const t = await startTestApp();
  const other = await anotherInstance(t);
  try {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const api = sessionsOf(s);
    const ended = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const kept = await openSession(t.app, s, { key, hwid: 'pc-1' });
    for (const id of [ended, kept]) expect((await api.heartbeat(other, id)).status).toBe(200);
    // Behind the stores' backs: the row goes and no counter moves, so the other instance's kept row still answers.
    await t.ctx.db.deleteFrom('liveSessions').where('id', '=', kept).execute();
    expect((await api.heartbeat(other, kept)).status).toBe(200);
    expect((await api.kill(t.app, { sessionId: ended })).body.data).toEqual({ ended: 1 });
    const beat = await api.heartbeat(other, ended);
    expect(beat.status).toBe(410);
    expect(beat.body).toMatchObject({ code: 'SESSION_ENDED', reason: 'KILLED' });
    // The kill stamped one session: the other instance did not read the rest again (it would find no row: 410).
    expect((await api.heartbeat(other, kept)).status).toBe(200);
  } finally {
    await other.close();
    await t.app.close();
    await t.database.drop();
  }
});

it("on PostgreSQL, reads all of a service's sessions again when its counter was last read longer ago than ended sessions are kept", async () => {
  if (testDialect() === 'sqlite') return;
  const t = await startTestApp();
  const other = await anotherInstance(t);
  try {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const api = sessionsOf(s);
    expect(
      (await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: { sessionHeartbeatSeconds: 300 } })).status,
    ).toBe(200);
    const ended = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const gone = await openSession(t.app, s, { key, hwid: 'pc-1' });
    for (const id of [ended, gone]) expect((await api.heartbeat(other, id)).status).toBe(200);
    await t.ctx.db.deleteFrom('liveSessions').where('id', '=', gone).execute();
    // Six minutes on (the sessions' period is five): the stamps of ends older than ten minutes may be pruned by now.
    t.clock.advance(6 * 60_000);
    expect((await api.kill(t.app, { sessionId: ended })).body.data).toEqual({ ended: 1 });
    expect((await api.heartbeat(other, ended)).body).toMatchObject({ code: 'SESSION_ENDED', reason: 'KILLED' });
    expect((await api.heartbeat(other, gone)).body).toMatchObject({ code: 'SESSION_ENDED', reason: 'TIMED_OUT' });
  } finally {
    await other.close();
    await t.app.close();
    await t.database.drop();
  }
});
