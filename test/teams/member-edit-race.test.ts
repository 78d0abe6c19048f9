// Contract §27: an owner's member PATCH changes only the fields it sends; while the reseller generates on two instances
// it never writes back an older keysLeft (40 concurrent generates during 10 owner edits spend exactly what was made).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { addMember, asMember } from './team-helpers.ts';

let t: TestApp;
let second: App;
beforeAll(async () => {
  t = await startTestApp();
  second = await anotherInstance(t);
});
afterAll(async () => {
  await second?.close();
  await t?.app.close();
  await t?.database.drop();
});

describe("an owner's member edit during a reseller's generates (two instances)", () => {
  it('spends keysLeft exactly by the keys made, whatever the owner edits meanwhile', async () => {
    const START = 100;
    const s = await seedService(t.ctx);
    const reseller = await addMember(t.app, t.ctx, s, 'reseller', { keysLeft: START, maxDays: 60, allowLifetime: false });
    const edits = [
      { quota: { maxDays: 30 } },
      { quota: { allowLifetime: true } },
      { role: 'reseller' },
      { quota: { maxDays: 90, allowLifetime: false } },
    ];
    const apps = [t.app, second];
    const generates = Array.from({ length: 40 }, (_, i) =>
      asMember(apps[i % 2]!, reseller, s, 'POST', '/keys/api/generate', { expirationType: 'afterRedeem', days: 1 }),
    );
    const patches = Array.from({ length: 10 }, (_, i) =>
      call(apps[i % 2]!, 'PATCH', `/api/v1/services/${s.id}/members/${reseller.id}`, {
        key: s.account.accountKey,
        body: edits[i % edits.length],
      }),
    );
    const [made, edited] = await Promise.all([Promise.all(generates), Promise.all(patches)]);
    for (const res of edited) expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const res of made) expect(res.status, JSON.stringify(res.body)).toBe(201);
    const status = await asMember(t.app, reseller, s, 'GET', '/keys/api/reseller');
    expect(status.body.data.keysCreated).toBe(40);
    expect(status.body.data.keysLeft).toBe(START - 40);
  });
});
