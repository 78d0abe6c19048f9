import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testDialect } from '../helpers/database.ts';
import { seedService } from '../helpers/seed.ts';
import { openOnStore } from './session-helpers.ts';

/** `count` live sessions opened on the store itself (no key, so no limit), and heartbeated 10 s later. */
async function heartbeatedSessions(t: TestApp, count: number, beforeBeats: () => Promise<void> = async () => {}) {
  const s = await seedService(t.ctx);
  const sessions = t.ctx.liveSessions;
  const ids = await openOnStore(t, s.id, count);
  await beforeBeats();
  t.clock.advance(10_000);
  for (const id of ids) expect(await sessions.heartbeat(s.id, id, t.clock.now)).toMatchObject({ alive: true });
  return ids;
}

/** Runs `test` on an app of its own, closed and its database dropped afterwards. */
async function onFreshApp(test: (t: TestApp) => Promise<void>) {
  const t = await startTestApp();
  try {
    await test(t);
  } finally {
    await t.app.close();
    await t.database.drop();
  }
}

const oldestLastSeen = async (t: TestApp) => {
  const { lastSeenAt } = await t.ctx.db
    .selectFrom('liveSessions')
    .select((eb) => eb.fn.min('lastSeenAt').as('lastSeenAt'))
    .executeTakeFirstOrThrow();
  return Number(lastSeenAt);
};

it('answers requests between the statements of a flush, not after all of them', () =>
  onFreshApp(async (t) => {
    await heartbeatedSessions(t, 1001);
    // On SQLite the statements run on the event loop: without a turn between them, the whole flush ran first.
    const order: string[] = [];
    const flushed = t.ctx.liveSessions.flush(t.clock.now).then(() => order.push('flush'));
    setImmediate(() => order.push('a request'));
    await flushed;
    expect(order).toEqual(['a request', 'flush']);
    expect(await oldestLastSeen(t)).toBe(t.clock.now);
  }));

// Migration 0027 (PostgreSQL): the session flush's updates stay on their pages (HOT), so a flush adds no index
// entries, and session ids compare byte by byte. SQLite does both whatever the schema says, so there is nothing to see
// there.
it('on PostgreSQL, a flush of heartbeats leaves the live sessions on their pages', async () => {
  if (testDialect() === 'sqlite') return;
  await onFreshApp(async (t) => {
    const pagesOf = async () => {
      const { rows } = await sql<{ id: string; page: string }>`select id, (ctid::text::point)[0]::text as page from live_sessions`.execute(
        t.ctx.db,
      );
      return new Map(rows.map((row) => [row.id, row.page]));
    };
    let before = new Map<string, string>();
    const ids = await heartbeatedSessions(t, 400, async () => {
      before = await pagesOf();
    });
    expect(new Set(before.values()).size).toBeGreaterThan(4);
    await t.ctx.liveSessions.flush(t.clock.now);

    const after = await pagesOf();
    const moved = ids.filter((id) => after.get(id) !== before.get(id));
    expect(moved.length).toBeLessThan(ids.length / 10);
    expect(await oldestLastSeen(t)).toBe(t.clock.now);
  });
});

it('on PostgreSQL, session ids compare byte by byte (their index needs no locale)', async () => {
  if (testDialect() === 'sqlite') return;
  await onFreshApp(async (t) => {
    const { rows } = await sql<{ collation: string | null }>`
      select collation_name as collation from information_schema.columns where table_name = 'live_sessions' and column_name = 'id'`.execute(
      t.ctx.db,
    );
    expect(rows).toEqual([{ collation: 'C' }]);
  });
});
