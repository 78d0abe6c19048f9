import pg from 'pg';
import { expect, it, vi } from 'vitest';
import { startTestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { seedService } from '../helpers/seed.ts';
import { openOnStore } from './session-helpers.ts';

// On PostgreSQL each batch of heartbeats first reads its services' end counters (live-sessions.db.ts). A second
// batch's read goes while the first's is on the wire, a third waits, and every batch is judged in order, so an end
// still reaches the next heartbeat. SQLite's server answers heartbeats from its kept rows, with no read to overlap.

const turn = () => new Promise((resolve) => setImmediate(resolve));

it('sends the second batch’s read while the first is on the wire, holds the third, and judges them in order', async () => {
  if (testDialect() !== 'postgres') return;
  const t = await startTestApp();
  const admin = new pg.Client({ connectionString: t.database.env.DATABASE_URL });
  await admin.connect();
  try {
    const s = await seedService(t.ctx);
    const [a, b, c, d] = await openOnStore(t, s.id, 4);
    const sessions = t.ctx.liveSessions;
    // Each is kept, and the service's counter known, as under load.
    for (const id of [a, b, c, d]) expect(await sessions.heartbeat(s.id, id!, t.clock.now)).toMatchObject({ alive: true });
    t.clock.advance(10_000);

    // The counters' table is locked, so every read of them waits in PostgreSQL until the test lets it go.
    await admin.query('begin');
    await admin.query('lock table live_session_epochs in access exclusive mode');
    // A read parsed while the lock is held shows in pg_stat_activity with the connection's previous query: count the
    // waits on the table itself.
    const waitingReads = async () => {
      const { rows } = await admin.query<{ n: number }>(
        `select count(*)::int as n from pg_locks where relation = 'live_session_epochs'::regclass and not granted`,
      );
      return rows[0]!.n;
    };
    const first = sessions.heartbeat(s.id, a!, t.clock.now);
    await turn();
    await vi.waitFor(async () => expect(await waitingReads()).toBe(1), { timeout: 5000, interval: 20 });
    const second = sessions.heartbeat(s.id, b!, t.clock.now);
    await turn();
    await vi.waitFor(async () => expect(await waitingReads()).toBe(2), { timeout: 5000, interval: 20 });
    const third = sessions.heartbeat(s.id, c!, t.clock.now);
    await turn();
    expect(await waitingReads()).toBe(2);
    await admin.query('rollback');
    const answers = await Promise.all([first, second, third]);
    expect(answers.map((answer) => answer.alive)).toEqual([true, true, true]);

    // An end committed before a heartbeat's batch reaches it, with reads overlapping again.
    const racing = sessions.heartbeat(s.id, a!, t.clock.now);
    await turn();
    expect(await sessions.end(s.id, { sessionId: d! }, 'KILLED', t.clock.now)).toBe(1);
    const [stillLive, ended] = await Promise.all([racing, sessions.heartbeat(s.id, d!, t.clock.now)]);
    expect(stillLive).toMatchObject({ alive: true });
    expect(ended).toMatchObject({ alive: false, reason: 'KILLED' });
  } finally {
    await admin.end();
    await t.app.close();
    await t.database.drop();
  }
});
