import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchedScript } from '../../src/lib/redis-batch.ts';

// The batches of a hot path's script (lib/redis-batch.ts), against the real Redis: every item gets its own reply,
// items that arrive while a call is on the wire share the next call, and a failed call fails only its own items.
const REDIS_URL = process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
const prefix = `kw:test:batch:${randomUUID()}:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

// Counts its calls; answers each item with (the item, how many items came before it in this call, the call's number).
const ECHO = `
local call = redis.call('INCR', ARGV[1])
local replies = {}
for i = 2, #ARGV do
  if ARGV[i] == 'fail' then return redis.error_reply('asked to fail') end
  replies[#replies + 1] = {ARGV[i], i - 2, call}
end
return replies
`;

describe('BatchedScript', () => {
  it('answers each item with its own reply, in far fewer calls than items', async () => {
    const echo = new BatchedScript<[string, number, number]>(redis, 'kwTestEcho', ECHO, 1, () => [`${prefix}calls`]);
    const items = Array.from({ length: 300 }, (_, i) => `item-${i}`);
    const replies = await Promise.all(items.map((item) => echo.run([item])));
    expect(replies.map(([item]) => item)).toEqual(items);
    const calls = Number(await redis.get(`${prefix}calls`));
    // The first item goes alone; the rest waited for it and went together (at most 500 to a call).
    expect(calls).toBe(2);
    expect(replies[0]).toEqual(['item-0', 0, 1]);
    expect(replies[299]).toEqual(['item-299', 298, 2]);
  });

  it('fails the items of a failed call only, and goes on with the next', async () => {
    const echo = new BatchedScript<[string, number, number]>(redis, 'kwTestEchoFail', ECHO, 1, () => [`${prefix}fail-calls`]);
    const first = echo.run(['alone']);
    const failed = [echo.run(['a']), echo.run(['fail']), echo.run(['b'])];
    await expect(first).resolves.toEqual(['alone', 0, 1]);
    for (const item of failed) await expect(item).rejects.toThrow('asked to fail');
    await expect(echo.run(['after'])).resolves.toEqual(['after', 0, 3]);
  });

  it('refuses an item of the wrong width before it reaches Redis', () => {
    const echo = new BatchedScript(redis, 'kwTestEchoWidth', ECHO, 1, () => [`${prefix}width-calls`]);
    expect(() => echo.run(['a', 'b'])).toThrow('kwTestEchoWidth takes 1 arguments per item');
  });
});
