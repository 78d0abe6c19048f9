import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { checkpoint, configure, start } from './helpers.ts';

// Guarantee: maxKeysPerAddressPerDay is exact under any concurrency, on both databases (the probe had 20 sessions
// from one address finishing at once get 18 keys on PostgreSQL with a limit of 3).
const t = useTestApp(SIGNIN_ENV);

describe('keys per address per day under concurrency', () => {
  it('20 sessions of one address finishing at once, over two instances, earn exactly the limit of 3 keys', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true, minSecondsPerCheckpoint: 0, checkpoints: 1, maxKeysPerAddressPerDay: 3 });
    const other = await anotherInstance(t());
    try {
      const sessions = [];
      for (let i = 0; i < 20; i++) sessions.push(await start(t().app, s, '203.0.113.50'));
      expect(sessions.every((x) => x.res.status === 201)).toBe(true);
      const answers = await Promise.all(sessions.map((x, i) => checkpoint(i % 2 === 0 ? t().app : other, s, x.id, x.cookie)));
      const earned = answers.filter((a) => a.status === 200);
      expect(earned).toHaveLength(3);
      expect(earned.every((a) => a.body.data.key !== null)).toBe(true);
      const refused = answers.filter((a) => a.status !== 200);
      expect(refused).toHaveLength(17);
      for (const a of refused) expect(a.body.code).toBe('KEY_SYSTEM_LIMIT');
      const keys = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
      expect(keys).toHaveLength(3);
      const grants = await t().ctx.db.selectFrom('keySystemGrants').select('key').where('serviceId', '=', s.id).execute();
      expect(grants.map((g) => g.key).sort()).toEqual(keys.map((k) => k.key).sort());
    } finally {
      await other.close();
    }
  });
});
