import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

// Issue 22 item 7: a row's own button (a bulk action on one key) names that key in the audit log.
const t = useTestApp();

describe('keys.bulk audit target', () => {
  it('is the key when the action touched exactly one, null when several', async () => {
    const s = await seedService(t().ctx);
    const [one, two, three] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 3 });
    expect(
      (await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', { key: s.serviceKey, body: { action: 'ban', keys: [one] } })).status,
    ).toBe(200);
    expect(
      (await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', { key: s.serviceKey, body: { action: 'pause', keys: [two, three] } }))
        .status,
    ).toBe(200);
    const log = await call(t().app, 'GET', '/api/v1/keys/api/audit?action=keys.bulk', { key: s.serviceKey });
    const entries = log.body.data.items.map((e: { target: string | null; details: { action: string } }) => [e.details.action, e.target]);
    // Both entries share the test clock's instant, so their order is not the point here.
    expect(entries.sort()).toEqual([
      ['ban', one],
      ['pause', null],
    ]);
  });
});
