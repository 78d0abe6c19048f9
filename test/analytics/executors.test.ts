import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/lib/time.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { fetchScript, uploadScript } from '../scripts/script-helpers.ts';

/** GET /keys/api/analytics/executors (contract §29): runs by the executor each reported, on both databases. */
const t = useTestApp();
const EXECUTORS = '/api/v1/keys/api/analytics/executors';

const validate = (s: SeededService, query: Record<string, string>) =>
  call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, ...query })}`);

async function items(s: SeededService, query: Record<string, string> = {}) {
  await t().ctx.analytics.flush(t().ctx.db);
  const res = await call(t().app, 'GET', `${EXECUTORS}?${new URLSearchParams(query)}`, { key: s.serviceKey });
  expect(res.status).toBe(200);
  return res.body.data.items as Array<Record<string, unknown>>;
}

describe('GET /keys/api/analytics/executors', () => {
  it('counts executions, valid verdicts, refusals by code, peak sessions and the last run per executor, most executions first', async () => {
    const { ctx, clock } = t();
    const s = await seedService(ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print("x")' });
    const [k1, k2] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 2 });
    const start = clock.now;
    // Wave: two fetches (valid, executed), one locked key. Delta 1.0 and delta 2.0 are two names as reported.
    expect((await fetchScript(t().app, script.id, { key: k1!, hwid: 'a', executor: 'Wave 2.1' })).status).toBe(200);
    clock.advance(60_000);
    expect((await fetchScript(t().app, script.id, { key: k1!, hwid: 'a', executor: 'Wave 2.1' })).status).toBe(200);
    expect((await validate(s, { key: k1!, hwid: 'b', executor: 'Wave 2.1' })).body.data.code).toBe('KEY_HWID_LOCKED');
    expect((await validate(s, { key: k2!, hwid: 'c', executor: 'Delta 1.0' })).body.data.code).toBe('KEY_VALID');
    expect((await validate(s, { key: 'nope', hwid: 'c', executor: 'Delta 1.0' })).body.data.code).toBe('KEY_INCORRECT');
    expect((await validate(s, { key: 'nope', hwid: 'c', executor: 'Delta 1.0' })).body.data.code).toBe('KEY_INCORRECT');
    // No executor named: counted as unknown. Lua check and POST body carry it too.
    expect((await validate(s, { key: k2!, hwid: 'c' })).body.data.code).toBe('KEY_VALID');
    const body = { service: s.identifier, key: k2, hwid: 'c', executor: '  Delta 1.0  ' };
    expect((await call(t().app, 'POST', '/api/v1/keys/validate', { body })).body.data.code).toBe('KEY_VALID');
    const check = await call(t().app, 'GET', `/api/v1/lua/check/${script.id}?key=${k2}&hwid=zz&executor=Delta%201.0`);
    expect(check.body.data.code).toBe('KEY_HWID_LOCKED');
    // Sessions: two open on Wave, one on another name.
    for (const hwid of ['a', 'a2']) {
      const opened = await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key: k1, hwid, executor: 'Wave 2.1' } });
      expect(opened.status, JSON.stringify(opened.body)).toBe(opened.body.data ? 201 : 403);
    }
    const lastAt = clock.now;

    const data = await items(s);
    expect(data).toEqual([
      {
        executor: 'Wave 2.1',
        executions: 2,
        valid: 3,
        refused: { KEY_HWID_LOCKED: 2 },
        peakSessions: 1,
        lastSeen: new Date(lastAt).toISOString(),
      },
      {
        executor: 'Delta 1.0',
        executions: 0,
        valid: 2,
        refused: { KEY_INCORRECT: 2, KEY_HWID_LOCKED: 1 },
        peakSessions: 0,
        lastSeen: new Date(lastAt).toISOString(),
      },
      { executor: 'unknown', executions: 0, valid: 1, refused: {}, peakSessions: 0, lastSeen: new Date(lastAt).toISOString() },
    ]);
    // The breakdown agrees with the service's own verdict totals.
    const totals = (await call(t().app, 'GET', '/api/v1/keys/api/analytics', { key: s.serviceKey })).body.data;
    const sum = (key: 'valid' | 'executions') => data.reduce((n, item) => n + (item[key] as number), 0);
    expect(totals.series.reduce((n: number, b: { valid: number }) => n + b.valid, 0)).toBe(sum('valid'));
    expect(totals.series.reduce((n: number, b: { executions: number }) => n + b.executions, 0)).toBe(sum('executions'));
    // A range that ends before these runs holds none of them.
    expect(await items(s, { from: String(start - 3 * DAY_MS), to: String(start - 2 * DAY_MS) })).toEqual([]);
  });

  it('keeps the most sessions of one executor live at once', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', noHwidValidation: true });
    const open = (hwid: string, executor: string) =>
      call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key, hwid, executor } });
    for (const hwid of ['1', '2', '3']) expect((await open(hwid, 'Wave 2.1')).status).toBe(201);
    expect((await open('4', 'Delta')).status).toBe(201);
    const data = await items(s);
    expect(data.find((i) => i.executor === 'Wave 2.1')).toMatchObject({ peakSessions: 3, valid: 3 });
    expect(data.find((i) => i.executor === 'Delta')).toMatchObject({ peakSessions: 1, valid: 1 });
  });

  it('keeps at most 200 names a day: 230 random names leave 200 of them and other, every run counted', async () => {
    const s = await seedService(t().ctx);
    const names = Array.from({ length: 230 }, (_, i) => `Random-${Math.random().toString(36).slice(2, 10)}-${i}`);
    // Two instances count them, half each, and flush the same day: together they keep no more than 200 names.
    const second = await anotherInstance(t());
    try {
      for (const [i, executor] of names.entries()) {
        const res = await call(
          i % 2 ? second : t().app,
          'GET',
          `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key: 'nope', hwid: 'h', executor })}`,
        );
        expect(res.body.data.code).toBe('KEY_INCORRECT');
      }
      await Promise.all([t().ctx.analytics.flush(t().ctx.db), second.ctx.analytics.flush(second.ctx.db)]);
    } finally {
      await second.close();
    }
    const data = await items(s);
    const other = data.find((i) => i.executor === 'other');
    expect(data.length).toBe(201);
    expect(other).toMatchObject({ refused: { KEY_INCORRECT: 30 } });
    expect(data.filter((i) => i.executor !== 'other').every((i) => names.includes(i.executor as string))).toBe(true);
    expect(data.reduce((n, i) => n + ((i.refused as Record<string, number>).KEY_INCORRECT ?? 0), 0)).toBe(230);
    // A name kept today keeps counting under itself; a new one still goes to other.
    const kept = data.find((i) => i.executor !== 'other')!.executor as string;
    await validate(s, { key: 'nope', hwid: 'h', executor: kept });
    await validate(s, { key: 'nope', hwid: 'h', executor: 'Brand New' });
    const after = await items(s);
    expect(after.length).toBe(201);
    expect(after.find((i) => i.executor === kept)!.refused).toEqual({ KEY_INCORRECT: 2 });
    expect(after.find((i) => i.executor === 'other')!.refused).toEqual({ KEY_INCORRECT: 31 });
  });
});

describe('the executor field on the client routes', () => {
  it('answers 400 naming executor for one over 64 characters or with control characters, never a 500', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print("x")' });
    for (const executor of ['x'.repeat(65), 'Wave\n2', 'Wave\u0000', 'Wave\u0085']) {
      const res = await validate(s, { key: 'k', hwid: 'h', executor });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'executor' });
      const posted = await call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.identifier, executor } });
      expect(posted.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'executor' });
      expect((await fetchScript(t().app, script.id, { key: 'k', hwid: 'h', executor })).status).toBe(400);
      const open = await call(t().app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { hwid: 'h', executor } });
      expect(open.status).toBe(400);
    }
    expect((await validate(s, { key: 'k', hwid: 'h', executor: 'x'.repeat(64) })).status).toBe(200);
    expect((await validate(s, { key: 'k', hwid: 'h', executor: 'Ядро Ω 1.0' })).status).toBe(200);
    const wrongType = await call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.identifier, executor: 7 } });
    expect(wrongType.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'executor' });
  });

  it('is a service-key route with the insights role, like the other analytics', async () => {
    const s = await seedService(t().ctx);
    expect((await call(t().app, 'GET', EXECUTORS)).status).toBe(401);
    const bad = await call(t().app, 'GET', `${EXECUTORS}?from=2026-11-22T00:00:00Z&to=2026-11-20T00:00:00Z`, { key: s.serviceKey });
    expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'from' });
    const typo = await call(t().app, 'GET', `${EXECUTORS}?form=1`, { key: s.serviceKey });
    expect(typo.status).toBe(400);
  });
});
