import { expect, it } from 'vitest';
import { writesOf } from '../../src/db/database.ts';
import { startTestApp } from '../helpers/app.ts';
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
