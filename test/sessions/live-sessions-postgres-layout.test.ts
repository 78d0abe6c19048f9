import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { seedService } from '../helpers/seed.ts';

// Migration 0027 (PostgreSQL): the session flush's updates stay on their pages (HOT), so a flush adds no index
// entries, and session ids compare byte by byte. SQLite does both whatever the schema says, so there is nothing to see
// there.
it('on PostgreSQL, a flush of heartbeats leaves the live sessions on their pages', async () => {
  const t = await startTestApp();
  try {
    if (testDialect() === 'sqlite') return;
    const s = await seedService(t.ctx);
    const sessions = t.ctx.liveSessions;
    const ids: string[] = [];
    const opened = t.clock.now;
    for (let i = 0; i < 400; i++) {
      const session = await sessions.open({
        serviceId: s.id,
        key: null,
        hwid: `pc-${i}`,
        scriptId: null,
        maxSessions: 0,
        heartbeatSeconds: 30,
        keyExpiresAt: null,
        now: opened,
      });
      if (session === 'limit') throw new Error('no limit was set');
      ids.push(session.sessionId);
    }
    const pagesOf = async () => {
      const { rows } = await sql<{ id: string; page: string }>`select id, (ctid::text::point)[0]::text as page from live_sessions`.execute(
        t.ctx.db,
      );
      return new Map(rows.map((row) => [row.id, row.page]));
    };
    const before = await pagesOf();
    expect(new Set(before.values()).size).toBeGreaterThan(4);

    t.clock.advance(10_000);
    for (const id of ids) expect(await sessions.heartbeat(s.id, id, t.clock.now)).toMatchObject({ alive: true });
    await sessions.flush(t.clock.now);

    const after = await pagesOf();
    const moved = ids.filter((id) => after.get(id) !== before.get(id));
    expect(moved.length).toBeLessThan(ids.length / 10);
    const { lastSeenAt } = await t.ctx.db
      .selectFrom('liveSessions')
      .select((eb) => eb.fn.min('lastSeenAt').as('lastSeenAt'))
      .executeTakeFirstOrThrow();
    expect(Number(lastSeenAt)).toBe(t.clock.now);
  } finally {
    await t.app.close();
    await t.database.drop();
  }
});

it('on PostgreSQL, session ids compare byte by byte (their index needs no locale)', async () => {
  const t = await startTestApp();
  try {
    if (testDialect() === 'sqlite') return;
    const { rows } = await sql<{ collation: string | null }>`
      select collation_name as collation from information_schema.columns where table_name = 'live_sessions' and column_name = 'id'`.execute(
      t.ctx.db,
    );
    expect(rows).toEqual([{ collation: 'C' }]);
  } finally {
    await t.app.close();
    await t.database.drop();
  }
});
