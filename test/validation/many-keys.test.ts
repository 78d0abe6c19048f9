import { describe, expect, it } from 'vitest';
import { batched } from '../../src/lib/batcher.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

// Real traffic is many keys validated at once. On PostgreSQL the lookups of one turn of the event loop share one
// statement (validation.repository.ts); each answer must still be its own key's, whatever else is in the batch.
const t = useTestApp({ VERDICT_CACHE_MS: '0' });

const validate = (service: string, key: string, hwid: string) =>
  call(t().app, 'GET', `/api/v1/keys/validate?service=${service}&key=${encodeURIComponent(key)}&hwid=${encodeURIComponent(hwid)}`);

describe('many distinct keys validated at once', () => {
  it('answers each key with its own verdict when their lookups share a batch', async () => {
    const a = await seedService(t().ctx);
    const b = await seedService(t().ctx);
    const keys = await generateKeys(t().app, a.serviceKey, { expirationType: 'lifetime', count: 16 });
    const [otherServiceKey] = await generateKeys(t().app, b.serviceKey);
    for (const [i, key] of keys.entries()) expect((await validate(a.identifier, key, `pc-${i}`)).body.data.code).toBe('KEY_VALID');
    expect((await validate(b.identifier, otherServiceKey!, 'pc-b')).body.data.code).toBe('KEY_VALID');
    const ban = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: a.serviceKey, body: { hwid: 'pc-15' } });
    expect(ban.status).toBe(201);

    const cases: [key: string, hwid: string, code: string][] = [
      ...keys.slice(0, 10).map((key, i): [string, string, string] => [key, `pc-${i}`, 'KEY_VALID']),
      ...keys.slice(10, 15).map((key, i): [string, string, string] => [key, `pc-other-${i}`, 'KEY_HWID_LOCKED']),
      [keys[15]!, 'pc-15', 'HWID_BLACKLISTED'],
      ['NO-SUCH-KEY-0001', 'pc-0', 'KEY_INCORRECT'],
      // Another service's key, with the HWID it is bound to: not a key of this service.
      [otherServiceKey!, 'pc-b', 'KEY_INCORRECT'],
    ];
    const answers = await Promise.all(cases.map(([key, hwid]) => validate(a.identifier, key, hwid)));
    expect(answers.map((r) => r.status)).toEqual(cases.map(() => 200));
    expect(answers.map((r) => r.body.data.code)).toEqual(cases.map(([, , code]) => code));
  });
});

describe('batched', () => {
  it('answers the calls of one turn with one run, each with its own output in order', async () => {
    const runs: number[][] = [];
    const double = batched(async (inputs: number[]) => {
      runs.push(inputs);
      return inputs.map((n) => n * 2);
    });
    expect(await Promise.all([1, 2, 3].map(double))).toEqual([2, 4, 6]);
    expect(await double(5)).toBe(10);
    expect(runs).toEqual([[1, 2, 3], [5]]);
  });

  it('runs a batch at once when it reaches its size, and the rest in the next', async () => {
    const runs: number[][] = [];
    const same = batched(async (inputs: number[]) => (runs.push(inputs), inputs), 2);
    expect(await Promise.all([1, 2, 3].map(same))).toEqual([1, 2, 3]);
    expect(runs).toEqual([[1, 2], [3]]);
  });

  it("rejects every call of a batch with the run's error, and later batches run again", async () => {
    let fail = true;
    const flaky = batched(async (inputs: number[]) => {
      if (fail) throw new Error('connection lost');
      return inputs;
    });
    const results = await Promise.allSettled([1, 2].map(flaky));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await flaky(3)).toBe(3);
  });
});
