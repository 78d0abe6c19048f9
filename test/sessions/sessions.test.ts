import { expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { writesOf } from '../../src/db/database.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { openSession, sessionsOf } from './session-helpers.ts';
import { sessionSuite } from './suite.ts';

// Live sessions kept in the database (no REDIS_URL).
sessionSuite(() => ({}));

/** Runs `test` on an app and a second instance on its database (as behind a load balancer), all closed afterwards. */
async function onFreshApps(test: (t: TestApp, other: App) => Promise<void>) {
  const t = await startTestApp();
  const other = await anotherInstance(t);
  try {
    await test(t, other);
  } finally {
    await other.close();
    await t.app.close();
    await t.database.drop();
  }
}

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

/**
 * Two sessions of one key, opened on `t` and heartbeated on `other`, which keeps their rows; then the second's row is
 * deleted behind the stores' backs, with no counter moved, so only a read of it again can answer 410.
 */
async function keptOnOther(t: TestApp, other: App, settings: Record<string, unknown> = {}) {
  const s = await seedService(t.ctx);
  const [key] = await generateKeys(t.app, s.serviceKey);
  const api = sessionsOf(s);
  if (Object.keys(settings).length > 0)
    expect((await call(t.app, 'PUT', '/api/v1/keys/api/settings', { key: s.serviceKey, body: settings })).status).toBe(200);
  const ended = await openSession(t.app, s, { key, hwid: 'pc-1' });
  const gone = await openSession(t.app, s, { key, hwid: 'pc-1' });
  for (const id of [ended, gone]) expect((await api.heartbeat(other, id)).status).toBe(200);
  await t.ctx.db.deleteFrom('liveSessions').where('id', '=', gone).execute();
  return { api, ended, gone };
}

it("marks what an end or a close ended and, on PostgreSQL, moves its service's counter and stamps it; an end of nothing writes nothing", () =>
  onFreshApps(async (t) => {
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
  }));

// PostgreSQL: a heartbeat's batch reads its services' end counters, not its sessions' rows, and an end lets go of the
// sessions it stamped only (docs/sessions.md). On SQLite the server hears every end in-process and never reads the
// counters, so there is nothing to see there.
it('on PostgreSQL, answers heartbeats from the rows it keeps, and an end on another instance lets go of its own sessions only', async () => {
  if (testDialect() === 'sqlite') return;
  await onFreshApps(async (t, other) => {
    const { api, ended, gone } = await keptOnOther(t, other);
    expect((await api.heartbeat(other, gone)).status).toBe(200);
    expect((await api.kill(t.app, { sessionId: ended })).body.data).toEqual({ ended: 1 });
    const beat = await api.heartbeat(other, ended);
    expect(beat.status).toBe(410);
    expect(beat.body).toMatchObject({ code: 'SESSION_ENDED', reason: 'KILLED' });
    // The kill stamped one session: the other instance did not read the rest again (it would find no row: 410).
    expect((await api.heartbeat(other, gone)).status).toBe(200);
  });
});

it("on PostgreSQL, reads all of a service's sessions again when its counter was last read longer ago than ended sessions are kept", async () => {
  if (testDialect() === 'sqlite') return;
  await onFreshApps(async (t, other) => {
    const { api, ended, gone } = await keptOnOther(t, other, { sessionHeartbeatSeconds: 300 });
    // Six minutes on (the sessions' period is five): the stamps of ends older than ten minutes may be pruned by now.
    t.clock.advance(6 * 60_000);
    expect((await api.kill(t.app, { sessionId: ended })).body.data).toEqual({ ended: 1 });
    expect((await api.heartbeat(other, ended)).body).toMatchObject({ code: 'SESSION_ENDED', reason: 'KILLED' });
    expect((await api.heartbeat(other, gone)).body).toMatchObject({ code: 'SESSION_ENDED', reason: 'TIMED_OUT' });
  });
});
