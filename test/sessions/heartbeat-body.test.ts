import { expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { openSession } from './session-helpers.ts';

// A heartbeat reads no body (plugins/no-body.ts): what an executor's request() sends with it, JSON or not, is left
// unread, so a body the JSON parser would refuse still gets the heartbeat's answer, and the connection serves the next.
it('answers a heartbeat whatever body it carries, and reads none', async () => {
  const t = await startTestApp();
  try {
    const s = await seedService(t.ctx);
    const [key] = await generateKeys(t.app, s.serviceKey);
    const sessionId = await openSession(t.app, s, { key, hwid: 'pc-1' });
    const url = `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat`;
    const bodies: Array<{ body: string; type: string }> = [
      { body: '{}', type: 'application/json' },
      { body: '{not json', type: 'application/json' },
      { body: '{"__proto__":{"x":1}}', type: 'application/json' },
      { body: 'beat=1', type: 'application/x-www-form-urlencoded' },
      { body: 'x'.repeat(2_000_000), type: 'text/plain' },
    ];
    for (const { body, type } of bodies) {
      const res = await call(t.app, 'POST', url, { body, headers: { 'content-type': type } });
      expect(res.status, type).toBe(200);
      expect(res.body.data.alive).toBe(true);
    }
    // The open beside it still reads and checks its body.
    const refused = await call(t.app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: '{not json' });
    expect(refused.status).toBe(400);
  } finally {
    await t.app.close();
    await t.database.drop();
  }
});
