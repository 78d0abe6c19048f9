import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { RedisBatch } from '../../src/lib/redis-batch.ts';

// The shared batch of the hot paths' scripts (lib/redis-batch.ts), against the real Redis: every item gets its own
// reply, items that arrive while a call is on the wire share the next call whatever their op, and a failed call fails
// only the items that travelled in it.
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

it('answers each item with its own reply, in far fewer calls than items', async () => {
  const before = batch.calls;
  const items = Array.from({ length: 300 }, (_, i) => `item-${i}`);
  const replies = await Promise.all(items.map((item) => echo([item])));
  expect(replies.map(([item]) => item)).toEqual(items);
  // The first item goes alone; the rest waited for it and went together (at most 500 to a call).
  expect(batch.calls - before).toBe(2);
  expect(replies[299]![1] - replies[0]![1]).toBe(299);
});

it('sends the items of different ops that wait together in one call, each answered by its own op', async () => {
  const first = echo(['alone']);
  const before = batch.calls;
  const waiting = [echo(['x']), pair(['a', 'b']), echo(['y']), pair(['c', 'd'])];
  await first;
  const [x, ab, y, cd] = await Promise.all(waiting);
  expect(batch.calls - before).toBe(1);
  expect([x![0], ab!.slice(0, 2), y![0], cd!.slice(0, 2)]).toEqual(['x', ['a', 'b'], 'y', ['c', 'd']]);
  const at = Number(x![1]);
  expect([ab![2], y![1], cd![2]]).toEqual([at + 1, at + 2, at + 3]);
});

it('fails an item its op refuses alone', async () => {
  const first = echo(['alone']);
  const together = [echo(['a']), echo(['refuse']), pair(['p', 'q'])];
  await first;
  const [a, refused, pq] = await Promise.allSettled(together);
  expect(a).toMatchObject({ status: 'fulfilled', value: ['a', expect.any(Number)] });
  expect(refused).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: 'asked to refuse' }) });
  expect(pq).toMatchObject({ status: 'fulfilled', value: ['p', 'q', expect.any(Number)] });
});

it('fails every item of a call whose script stops with an error, and goes on with the next', async () => {
  const first = echo(['alone']);
  const failed = [echo(['a']), pair(['p', 'q']), echo(['fail']), echo(['b'])];
  await expect(first).resolves.toEqual(['alone', expect.any(Number)]);
  for (const item of failed) await expect(item).rejects.toThrow('asked to fail');
  await expect(echo(['after'])).resolves.toEqual(['after', expect.any(Number)]);
});

it('refuses an item of the wrong width before it reaches Redis', () => {
  expect(() => pair(['only one'])).toThrow('pair takes 2 arguments per item');
});
