import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { GateShut, RedisBatch } from '../../src/lib/redis-batch.ts';

// The shared batch of the hot paths' scripts (lib/redis-batch.ts), against the real Redis: every item gets its own
// reply, items added in one turn of the event loop, or while two calls are on the wire, share a call whatever their op, a
// failed call fails only the items that travelled in it, and items behind a gate run only when it opens.
const REDIS_URL = process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
const prefix = `kw:test:batch:${randomUUID()}:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const batch = RedisBatch.of(redis);
// Answers the item and the order in which the items reached Redis (one counter for both ops).
const echo = batch.define<[string, number]>({
  name: 'echo',
  params: ['item'],
  lua: `    if item == 'refuse' then return redis.error_reply('asked to refuse') end
    if item == 'fail' then error('asked to fail') end
    return {item, redis.call('INCR', '${prefix}seq')}`,
});
const pair = batch.define<[string, string, number]>({
  name: 'pair',
  params: ['a', 'b'],
  lua: `    return {a, b, redis.call('INCR', '${prefix}seq')}`,
});

it('is one batch per connection', () => {
  expect(RedisBatch.of(redis)).toBe(batch);
  expect(RedisBatch.of(new Redis(REDIS_URL, { lazyConnect: true }))).not.toBe(batch);
});

it('answers each item with its own reply, the items of one turn of the event loop in one call (at most 500 to a call)', async () => {
  const before = batch.calls;
  const items = Array.from({ length: 300 }, (_, i) => `item-${i}`);
  const replies = await Promise.all(items.map((item) => echo([item])));
  expect(replies.map(([item]) => item)).toEqual(items);
  expect(batch.calls - before).toBe(1);
  expect(replies[299]![1] - replies[0]![1]).toBe(299);
  const many = await Promise.all(Array.from({ length: 700 }, (_, i) => echo([`many-${i}`])));
  expect(many[699]![0]).toBe('many-699');
  expect(batch.calls - before).toBe(3);
});

it('sends a second call while the first is on the wire, and the items that arrive while two are there together in the next, in order', async () => {
  // Redis holds every script until unpaused, so the calls stay on the wire for as long as the test needs.
  const admin = new Redis(REDIS_URL);
  await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE');
  try {
    const before = batch.calls;
    const first = echo(['first']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batch.calls - before).toBe(1);
    const second = [echo(['x']), pair(['a', 'b'])];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batch.calls - before).toBe(2);
    const third = [echo(['y']), pair(['c', 'd']), echo(['z'])];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batch.calls - before).toBe(2);
    await admin.call('CLIENT', 'UNPAUSE');
    const [one, x, ab, y, cd, z] = await Promise.all([first, ...second, ...third]);
    expect(batch.calls - before).toBe(3);
    expect([one![0], x![0], ab!.slice(0, 2), y![0], cd!.slice(0, 2), z![0]]).toEqual(['first', 'x', ['a', 'b'], 'y', ['c', 'd'], 'z']);
    const at = Number(one![1]);
    expect([x![1], ab![2], y![1], cd![2], z![1]]).toEqual([at + 1, at + 2, at + 3, at + 4, at + 5]);
  } finally {
    await admin.call('CLIENT', 'UNPAUSE');
    admin.disconnect();
  }
});

it('fails an item its op refuses alone', async () => {
  const together = [echo(['a']), echo(['refuse']), pair(['p', 'q'])];
  const [a, refused, pq] = await Promise.allSettled(together);
  expect(a).toMatchObject({ status: 'fulfilled', value: ['a', expect.any(Number)] });
  expect(refused).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: 'asked to refuse' }) });
  expect(pq).toMatchObject({ status: 'fulfilled', value: ['p', 'q', expect.any(Number)] });
});

it('fails every item of a call whose script stops with an error, and goes on with the next', async () => {
  const failed = [echo(['a']), pair(['p', 'q']), echo(['fail']), echo(['b'])];
  for (const item of failed) await expect(item).rejects.toThrow('asked to fail');
  await expect(echo(['after'])).resolves.toEqual(['after', expect.any(Number)]);
});

it('refuses an item of the wrong width before it reaches Redis', () => {
  expect(() => pair(['only one'])).toThrow('pair takes 2 arguments per item');
});

describe('gates', () => {
  // A gate opens when its item's INCR stays within `max`; the items behind it record that they ran.
  const gate = batch.define<number>({
    name: 'gate',
    params: ['key', 'max'],
    lua: `    return redis.call('INCR', key)`,
    opens: 'reply <= tonumber(max)',
  });
  const mark = batch.define<number>({ name: 'mark', params: ['key'], lua: `    return redis.call('INCR', key)` });
  const key = (name: string) => `${prefix}${name}:${randomUUID()}`;

  it('runs the items behind an open gate in the gate’s call, after it', async () => {
    const [counter, ran] = [key('counter'), key('ran')];
    const before = batch.calls;
    const opened = gate([counter, 1]);
    const behind = batch.behind(() => [mark([ran]), mark([ran])]);
    expect(await opened).toBe(1);
    expect(await Promise.all(behind)).toEqual([1, 2]);
    expect(batch.calls - before).toBe(1);
  });

  it('holds back the items behind a shut gate: they are rejected with GateShut and their ops never ran', async () => {
    const [counter, ran] = [key('counter'), key('ran')];
    await redis.set(counter, '5');
    const shut = gate([counter, 5]);
    const behind = batch.behind(() => mark([ran]));
    // An item that did not wait behind the gate runs whatever it answered.
    const free = mark([ran]);
    expect(await shut).toBe(6);
    await expect(behind).rejects.toBeInstanceOf(GateShut);
    expect(await free).toBe(1);
    expect(await redis.get(ran)).toBe('1');
  });

  it('holds back what waits behind an item that was itself held back', async () => {
    const [counter, inner, ran] = [key('counter'), key('inner'), key('ran')];
    await redis.set(counter, '9');
    const outer = gate([counter, 1]);
    const chained = batch.behind(() => {
      const second = gate([inner, 100]);
      return { second, last: batch.behind(() => mark([ran])) };
    });
    expect(await outer).toBe(10);
    await expect(chained.second).rejects.toBeInstanceOf(GateShut);
    await expect(chained.last).rejects.toBeInstanceOf(GateShut);
    expect(await redis.exists(inner, ran)).toBe(0);
  });

  it('never parts a gate from the items behind it at the end of a full call', async () => {
    const [counter, ran] = [key('counter'), key('ran')];
    const before = batch.calls;
    const fillers = Array.from({ length: 499 }, (_, i) => echo([`filler-${i}`]));
    const opened = gate([counter, 1]);
    const behind = batch.behind(() => [mark([ran]), mark([ran])]);
    await Promise.all(fillers);
    expect(await opened).toBe(1);
    expect(await Promise.all(behind)).toEqual([1, 2]);
    // The 499 fillers, the gate and both items behind it went in one call of 502.
    expect(batch.calls - before).toBe(1);
  });

  it('answers admission() once the gate answers: fulfilled where it opened, GateShut where it stayed shut, null outside', async () => {
    expect(batch.admission()).toBeNull();
    const [open, shut] = [key('open'), key('shut')];
    await redis.set(shut, '3');
    const opened = gate([open, 1]);
    const admitted = batch.behind(() => batch.admission());
    const refused = gate([shut, 3]);
    const held = batch.behind(() => [batch.admission(), batch.admission()]);
    expect(held[0]).toBe(held[1]);
    await expect(admitted).resolves.toBeUndefined();
    await expect(held[0]).rejects.toBeInstanceOf(GateShut);
    expect([await opened, await refused]).toEqual([1, 4]);
  });

  it('shares a waiting read among its callers, never behind a gate, and reads again once it went', async () => {
    const read = batch.define<string>({ name: 'read', params: ['key'], lua: `    return redis.call('GET', key) or ''`, shared: true });
    const [counter, value] = [key('counter'), key('value')];
    await redis.set(counter, '7');
    await redis.set(value, 'first');
    const before = batch.calls;
    const first = read([value]);
    const shutGate = gate([counter, 7]);
    // Asked behind a gate that stays shut, the read is still the one waiting, and is answered.
    const behind = batch.behind(() => read([value]));
    const other = read([key('none')]);
    expect(behind).toBe(first);
    expect(other).not.toBe(first);
    expect(await first).toBe('first');
    expect(await other).toBe('');
    await expect(shutGate).resolves.toBe(8);
    expect(batch.calls - before).toBe(1);
    await redis.set(value, 'second');
    const again = read([value]);
    expect(again).not.toBe(first);
    expect(await again).toBe('second');
  });

  it('refuses behind() when the last item added cannot be a gate', () => {
    void mark([key('ran')]);
    expect(() => batch.behind(() => undefined)).toThrow('behind() needs the gate');
  });
});
