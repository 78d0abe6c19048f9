// Contract §27 (what a black-box probe found): concurrent edits of the same keys' time (single and bulk extend,
// compensate, a switch to afterRedeem, the Luarmor PATCH of auth_expire) on two instances never answer 5xx (the probe
// saw TypeErrors and PostgreSQL's "deadlock detected" in 67 of 640), and the final expiry is what the edits in their
// commit order make.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, startTestApp, type TestApp } from '../helpers/app.ts';
import { DAY_MS, redeem } from '../helpers/records.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';

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

const EXTEND = '/api/v1/keys/api/key/extend-expiration';
const BULK = '/api/v1/keys/api/keys/bulk';
const COMPENSATE = '/api/v1/keys/api/compensate';
const GENERATED = '/api/v1/keys/api/generated-key';

type Answer = Awaited<ReturnType<typeof call>>;
const statusesOf = (answers: Answer[]) => answers.map((a) => `${a.status} ${a.status >= 500 ? JSON.stringify(a.body) : ''}`);

async function expiryOf(table: 'activeKeys' | 'generatedKeys', key: string) {
  return t.ctx.db.selectFrom(table).select(['expiresAt']).where('key', '=', key).executeTakeFirstOrThrow();
}

async function activeKeys(s: SeededService, n: number) {
  const keys = await generateKeys(t.app, s.serviceKey, { expirationType: 'byDays', days: 30, count: n });
  for (const [i, key] of keys.entries()) await redeem(t.app, s.identifier, key, `pc-${i}`);
  return keys;
}

/** Deterministic shuffles: the same keys in different orders, so no two bulk requests lock them alike by accident. */
const orders = <T>(items: T[]) => [items, [...items].reverse(), [...items.slice(1), items[0]!], [...items].sort()];

describe("concurrent edits of the same keys' time on two instances", () => {
  it('never answer 5xx, and every extension, bulk extension, compensation and switch to afterRedeem counts exactly', async () => {
    const s = await seedService(t.ctx);
    const apps = [t.app, second];
    const active = await activeKeys(s, 4);
    const dated = await generateKeys(t.app, s.serviceKey, { expirationType: 'byDays', days: 20, count: 3 });
    const switching = await generateKeys(t.app, s.serviceKey, { expirationType: 'byDays', days: 10, count: 3 });
    const [lifetime] = await generateKeys(t.app, s.serviceKey, { expirationType: 'lifetime' });
    const withExpiry = [...active, ...dated];
    const start = new Map<string, number>();
    for (const key of active) start.set(key, (await expiryOf('activeKeys', key)).expiresAt!);
    for (const key of dated) start.set(key, (await expiryOf('generatedKeys', key)).expiresAt!);

    type Request = { run: () => Promise<Answer>; days: Map<string, number>; kind: string };
    const requests: Request[] = [];
    let n = 0;
    const app = () => apps[n++ % 2]!;
    const single = (key: string, days: number) => {
      const on = app();
      requests.push({
        kind: 'extend',
        days: new Map([[key, days]]),
        run: () => call(on, 'POST', EXTEND, { key: s.serviceKey, body: { key, days } }),
      });
    };
    for (let round = 0; round < 4; round++) {
      for (const [i, key] of withExpiry.entries()) single(key, 1 + ((i + round) % 3));
      for (const [i, keys] of orders([...withExpiry, lifetime!]).entries()) {
        const on = app();
        const days = 2 + i;
        requests.push({
          kind: 'bulk',
          days: new Map(withExpiry.map((k) => [k, days])),
          run: () => call(on, 'POST', BULK, { key: s.serviceKey, body: { action: 'extend', keys, days } }),
        });
      }
      // Overlapping halves in opposite orders: each holds the other's next key when the rows are not locked in order.
      for (const keys of [withExpiry.slice(0, 5), withExpiry.slice(2).reverse()]) {
        const on = app();
        requests.push({
          kind: 'bulk',
          days: new Map(keys.map((k) => [k, 1])),
          run: () => call(on, 'POST', BULK, { key: s.serviceKey, body: { action: 'extend', keys, days: 1 } }),
        });
      }
      const on = app();
      requests.push({
        kind: 'compensate',
        days: new Map(withExpiry.map((k) => [k, 1])),
        run: () => call(on, 'POST', COMPENSATE, { key: s.serviceKey, body: { days: 1 } }),
      });
    }
    // The keys switched to afterRedeem (once each) while they are extended one by one: an extension before the switch
    // is replaced by it, one after it lengthens the time the key runs from redemption.
    const switchExtends: { key: string; days: number; answer: Promise<Answer> }[] = [];
    const switches: Promise<Answer>[] = [];
    const started = requests.map((r) => r.run());
    for (const [i, key] of switching.entries()) {
      for (let j = 0; j < 4; j++) {
        const days = 1 + j;
        switchExtends.push({ key, days, answer: call(app(), 'POST', EXTEND, { key: s.serviceKey, body: { key, days } }) });
        if (j === 1 + (i % 2))
          switches.push(call(app(), 'PUT', GENERATED, { key: s.serviceKey, body: { key, expirationType: 'afterRedeem', days: 7 } }));
      }
    }
    const answers = await Promise.all(started);
    const switched = await Promise.all(switches);
    const extendedWhileSwitching = await Promise.all(switchExtends.map((e) => e.answer));

    const all = [...answers, ...switched, ...extendedWhileSwitching];
    expect(all.length).toBeGreaterThanOrEqual(60);
    expect(all.filter((a) => a.status >= 500).length, statusesOf(all).join('\n')).toBe(0);
    expect(statusesOf(all)).toEqual(all.map(() => '200 '));

    const expected = new Map(start);
    for (const r of requests) for (const [key, days] of r.days) expected.set(key, expected.get(key)! + days * DAY_MS);
    for (const key of active) expect((await expiryOf('activeKeys', key)).expiresAt, key).toBe(expected.get(key));
    for (const key of dated) expect((await expiryOf('generatedKeys', key)).expiresAt, key).toBe(expected.get(key));
    expect((await expiryOf('generatedKeys', lifetime!)).expiresAt).toBeNull();

    // Each switched key runs 7 days from redemption plus every extension that answered with the key already switched.
    for (const key of switching) {
      const after = switchExtends
        .map((e, i) => ({ ...e, res: extendedWhileSwitching[i]! }))
        .filter((e) => e.key === key && e.res.body.data.expirationType === 'afterRedeem');
      const row = await t.ctx.db
        .selectFrom('generatedKeys')
        .select(['expiresAt', 'expirationType', 'durationDays'])
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ expiresAt: null, expirationType: 'afterRedeem', durationDays: 7 + after.reduce((sum, e) => sum + e.days, 0) });
      // An answer tells the key as that extension left it: after the switch, the length it reached.
      for (const e of after) expect(e.res.body.data.durationDays).toBeGreaterThanOrEqual(7 + e.days);
    }
  });

  it("never answer 5xx when the Luarmor API sets a key's expiry while it is extended, and the later extensions count", async () => {
    const s = await seedService(t.ctx);
    const [key] = await activeKeys(s, 1);
    const { expiresAt: start } = await expiryOf('activeKeys', key!);
    // Far past anything the extensions alone reach, so an extension's answer tells whether the set came before it.
    const setTo = Math.ceil((start! + 1000 * DAY_MS) / 1000) * 1000;
    const days = (i: number) => 1 + (i % 3);
    const extensions = Array.from({ length: 20 }, (_, i) =>
      call(i % 2 ? second : t.app, 'POST', EXTEND, { key: s.serviceKey, body: { key, days: days(i) } }),
    );
    const set = second.inject({
      method: 'PATCH',
      url: `/luarmor/v3/projects/${s.identifier}/users`,
      headers: { authorization: s.serviceKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ user_key: key, auth_expire: setTo / 1000 }),
    });
    const extended = await Promise.all(extensions);
    const setAnswer = await set;
    expect(`${setAnswer.statusCode} ${setAnswer.body}`).toMatch(/^200 /);
    expect(statusesOf(extended)).toEqual(extended.map(() => '200 '));
    // The set replaced every extension before it; each one after it answered past the set date and counts.
    const after = extended.map((a, i) => ({ at: Date.parse(a.body.data.expiresAt), days: days(i) })).filter((e) => e.at > setTo);
    const { expiresAt } = await expiryOf('activeKeys', key!);
    expect(expiresAt).toBe(setTo + after.reduce((sum, e) => sum + e.days * DAY_MS, 0));
  });
});
