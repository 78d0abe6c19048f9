import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, expectValidationError, iso, redeem, serviceSeeder } from '../helpers/records.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const CHAT_ID = '123456789012345678';

let shared: SeededService | undefined;
const service = async () => (shared ??= await newService());
const api = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) =>
  call(t().app, method, `/api/v1${path}`, { key: (await service()).serviceKey, body });
const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;

/** Each case: [what is sent, the field the 400 must name]. */
type Case = [Record<string, unknown>, string];

describe('POST /api/v1/keys/api/generate refuses bad input with 400 VALIDATION_ERROR naming the field', () => {
  const future = () => t().clock.now + DAY_MS;
  const cases: Array<[string, () => Case]> = [
    ['missing expirationType', () => [{ count: 1 }, 'expirationType']],
    ['unknown expirationType', () => [{ expirationType: 'forever' }, 'expirationType']],
    ['count as a string "7"', () => [{ expirationType: 'lifetime', count: '7' }, 'count']],
    ['count as a float', () => [{ expirationType: 'lifetime', count: 1.5 }, 'count']],
    ['count negative', () => [{ expirationType: 'lifetime', count: -1 }, 'count']],
    ['count zero', () => [{ expirationType: 'lifetime', count: 0 }, 'count']],
    ['count 1001', () => [{ expirationType: 'lifetime', count: 1001 }, 'count']],
    ['count null', () => [{ expirationType: 'lifetime', count: null }, 'count']],
    ['days 0', () => [{ expirationType: 'byDays', days: 0 }, 'days']],
    ['days 3651', () => [{ expirationType: 'byDays', days: 3651 }, 'days']],
    ['days as a string "7"', () => [{ expirationType: 'byDays', days: '7' }, 'days']],
    ['days as a float', () => [{ expirationType: 'byDays', days: 1.5 }, 'days']],
    ['byDays without days', () => [{ expirationType: 'byDays' }, 'days']],
    ['byDays with expiresAt', () => [{ expirationType: 'byDays', days: 1, expiresAt: future() }, 'expiresAt']],
    ['byDate without expiresAt', () => [{ expirationType: 'byDate' }, 'expiresAt']],
    ['byDate with a past ISO date', () => [{ expirationType: 'byDate', expiresAt: iso(t().clock.now - 1000) }, 'expiresAt']],
    ['byDate with a past epoch', () => [{ expirationType: 'byDate', expiresAt: t().clock.now - 1 }, 'expiresAt']],
    ['byDate with now itself', () => [{ expirationType: 'byDate', expiresAt: t().clock.now }, 'expiresAt']],
    ['byDate with an impossible date', () => [{ expirationType: 'byDate', expiresAt: '2099-02-30T00:00:00.000Z' }, 'expiresAt']],
    ['byDate with words', () => [{ expirationType: 'byDate', expiresAt: 'next tuesday' }, 'expiresAt']],
    ['byDate with a negative epoch', () => [{ expirationType: 'byDate', expiresAt: -5 }, 'expiresAt']],
    ['byDate with a float epoch', () => [{ expirationType: 'byDate', expiresAt: future() + 0.5 }, 'expiresAt']],
    ['byDate with days', () => [{ expirationType: 'byDate', expiresAt: future(), days: 1 }, 'days']],
    ['lifetime with days', () => [{ expirationType: 'lifetime', days: 30 }, 'days']],
    ['lifetime with expiresAt', () => [{ expirationType: 'lifetime', expiresAt: future() }, 'expiresAt']],
    ['an unknown field', () => [{ expirationType: 'lifetime', expiry: 3 }, 'expiry']],
    ['a note over 256 characters', () => [{ expirationType: 'lifetime', note: 'n'.repeat(257) }, 'note']],
    ['a note that is not a string', () => [{ expirationType: 'lifetime', note: 5 }, 'note']],
    ['isPremium as "true"', () => [{ expirationType: 'lifetime', isPremium: 'true' }, 'isPremium']],
    ['noHwidValidation as 1', () => [{ expirationType: 'lifetime', noHwidValidation: 1 }, 'noHwidValidation']],
    ['chatId too short', () => [{ expirationType: 'lifetime', chatId: '1234' }, 'chatId']],
    ['chatId too long', () => [{ expirationType: 'lifetime', chatId: '1'.repeat(21) }, 'chatId']],
    ['chatId with letters', () => [{ expirationType: 'lifetime', chatId: '12345678901234567a' }, 'chatId']],
    ['chatId as a number', () => [{ expirationType: 'lifetime', chatId: 123456789012345678 }, 'chatId']],
  ];
  for (const [name, make] of cases) {
    it(`refuses ${name}`, async () => {
      const [body, field] = make();
      expectValidationError(await api('POST', '/keys/api/generate', body), field);
    });
  }

  it('creates nothing when the input is refused', async () => {
    const s = await newService();
    await call(t().app, 'POST', '/api/v1/keys/api/generate', { key: s.serviceKey, body: { expirationType: 'lifetime', count: 1001 } });
    const status = await call(t().app, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey });
    expect(status.body.data.generatedKeys).toBe(0);
  });

  it('accepts a note of exactly 256 characters', async () => {
    const res = await api('POST', '/keys/api/generate', { expirationType: 'lifetime', note: 'n'.repeat(256) });
    expect(res.status).toBe(201);
  });

  it('refuses a body that is not a JSON object, and malformed JSON, without a 500', async () => {
    expectValidationError(await api('POST', '/keys/api/generate', []), 'body');
    expectValidationError(await api('POST', '/keys/api/generate', '"lifetime"'), 'body');
    expectValidationError(await api('POST', '/keys/api/generate', '{"expirationType":'), 'body');
    expectValidationError(await api('POST', '/keys/api/generate'), 'body');
  });
});

describe('GET /api/v1/keys/api/key and /generated-key insist on exactly one lookup field', () => {
  it('refuses none of key, hwid, note', async () => {
    expectValidationError(await api('GET', '/keys/api/key'), 'key');
    expectValidationError(await api('GET', '/keys/api/generated-key'), 'key');
  });

  it('refuses two of them', async () => {
    expectValidationError(await api('GET', `/keys/api/key${q({ key: 'a'.repeat(32), hwid: 'pc' })}`), 'key');
    expectValidationError(await api('GET', `/keys/api/key${q({ hwid: 'pc', note: 'n' })}`), 'key');
    expectValidationError(await api('GET', `/keys/api/generated-key${q({ key: 'a'.repeat(32), note: 'n' })}`), 'key');
  });

  it('refuses unknown, repeated and oversize parameters', async () => {
    expectValidationError(await api('GET', `/keys/api/key${q({ key: 'a'.repeat(32), apiKey: 'x' })}`), 'apiKey');
    expectValidationError(await api('GET', `/keys/api/generated-key${q({ hwid: 'pc' })}`), 'hwid');
    expectValidationError(await api('GET', `/keys/api/key?key=a&key=b`), 'key');
    expectValidationError(await api('GET', `/keys/api/key${q({ hwid: 'h'.repeat(257) })}`), 'hwid');
    expectValidationError(await api('GET', `/keys/api/key${q({ note: 'n'.repeat(257) })}`), 'note');
    expectValidationError(await api('GET', `/keys/api/generated-key${q({ note: 'n'.repeat(257) })}`), 'note');
  });
});

describe('PUT /api/v1/keys/api/key refuses bad input', () => {
  const key = 'k'.repeat(32);
  const cases: Case[] = [
    [{ note: 'x' }, 'key'],
    [{ key: 5 }, 'key'],
    [{ key, status: 'expired' }, 'status'],
    [{ key, status: null }, 'status'],
    [{ key, isPremium: 'false' }, 'isPremium'],
    [{ key, noHwidValidation: 0 }, 'noHwidValidation'],
    [{ key, hwid: 'h'.repeat(257) }, 'hwid'],
    [{ key, hwid: '' }, 'hwid'],
    [{ key, hwid: 7 }, 'hwid'],
    [{ key, note: 'n'.repeat(257) }, 'note'],
    [{ key, expiresAt: 'soon' }, 'expiresAt'],
    [{ key, expiresAt: '7' }, 'expiresAt'],
    [{ key, chatId: '12' }, 'chatId'],
    [{ key, chatId: 123456789012345678 }, 'chatId'],
    [{ key, expirationType: 'lifetime' }, 'expirationType'],
    [{ key, executions: 5 }, 'executions'],
  ];
  for (const [body, field] of cases) {
    it(`names ${field} for ${JSON.stringify(body).slice(0, 80)}`, async () => {
      expectValidationError(await api('PUT', '/keys/api/key', body), field);
    });
  }
});

describe('PUT /api/v1/keys/api/generated-key refuses bad input', () => {
  it('refuses expiresAt null: a generated key never becomes lifetime by an edit', async () => {
    const [key] = await generateKeys(t().app, (await service()).serviceKey, { expirationType: 'byDays', days: 3 });
    expectValidationError(await api('PUT', '/keys/api/generated-key', { key, expiresAt: null }), 'expiresAt');
    const stored = await api('GET', `/keys/api/generated-key${q({ key: key! })}`);
    expect(stored.body.data.keys[0].expiresAt).not.toBeNull();
  });

  const key = 'k'.repeat(32);
  const cases: Case[] = [
    [{ key, hwid: 'pc' }, 'hwid'],
    [{ key, status: 'deleted' }, 'status'],
    [{ key, note: 'n'.repeat(257) }, 'note'],
    [{ key, isPremium: 'yes' }, 'isPremium'],
    [{ key, chatId: 'abc' }, 'chatId'],
    [{ key, expiresAt: 'never' }, 'expiresAt'],
    [{ status: 'active' }, 'key'],
  ];
  for (const [body, field] of cases) {
    it(`names ${field} for ${JSON.stringify(body).slice(0, 80)}`, async () => {
      expectValidationError(await api('PUT', '/keys/api/generated-key', body), field);
    });
  }
});

describe('DELETE key routes refuse bad input', () => {
  it('needs a key', async () => {
    expectValidationError(await api('DELETE', '/keys/api/key'), 'key');
    expectValidationError(await api('DELETE', '/keys/api/generated-key'), 'key');
  });

  it('refuses unknown fields in the query string or the body', async () => {
    expectValidationError(await api('DELETE', `/keys/api/key${q({ key: 'a', force: '1' })}`), 'force');
    expectValidationError(await api('DELETE', '/keys/api/generated-key', { key: 'a', force: true }), 'force');
  });

  it('refuses a body that is not an object', async () => {
    expectValidationError(await api('DELETE', '/keys/api/key', ['a']), 'body');
  });
});

describe('POST /api/v1/keys/api/key/extend-expiration refuses bad input', () => {
  const key = 'k'.repeat(32);
  const cases: Case[] = [
    [{ key }, 'days'],
    [{ key, days: 0 }, 'days'],
    [{ key, days: 3651 }, 'days'],
    [{ key, days: -2 }, 'days'],
    [{ key, days: 1.5 }, 'days'],
    [{ key, days: '7' }, 'days'],
    [{ days: 1 }, 'key'],
    [{ key, days: 1, hours: 2 }, 'hours'],
  ];
  for (const [body, field] of cases) {
    it(`names ${field} for ${JSON.stringify(body)}`, async () => {
      expectValidationError(await api('POST', '/keys/api/key/extend-expiration', body), field);
    });
  }
});

describe('GET /api/v1/keys/api/key/binding refuses bad input', () => {
  it('needs a key and a type of active or generated', async () => {
    expectValidationError(await api('GET', `/keys/api/key/binding${q({ type: 'active' })}`), 'key');
    expectValidationError(await api('GET', `/keys/api/key/binding${q({ key: 'a' })}`), 'type');
    expectValidationError(await api('GET', `/keys/api/key/binding${q({ key: 'a', type: 'bound' })}`), 'type');
    expectValidationError(await api('GET', `/keys/api/key/binding${q({ key: 'a', type: 'active', hwid: 'x' })}`), 'hwid');
  });
});

describe('GET /api/v1/keys/api/key/by-chat refuses bad input', () => {
  it('needs a valid chat id', async () => {
    expectValidationError(await api('GET', '/keys/api/key/by-chat'), 'chatId');
    expectValidationError(await api('GET', `/keys/api/key/by-chat${q({ chatId: 'someone' })}`), 'chatId');
    expectValidationError(await api('GET', `/keys/api/key/by-chat${q({ chatId: '1234567890123456' })}`), 'chatId');
    expectValidationError(await api('GET', `/keys/api/key/by-chat${q({ chatId: '123456789012345678901' })}`), 'chatId');
  });

  it('parses includeLoadstring strictly', async () => {
    for (const value of ['true', '2', '', ' 1', '1.0']) {
      expectValidationError(
        await api('GET', `/keys/api/key/by-chat${q({ chatId: CHAT_ID, includeLoadstring: value })}`),
        'includeLoadstring',
      );
    }
  });
});

describe('POST /api/v1/keys/reset-hwid refuses bad input', () => {
  it('needs a string key and nothing else', async () => {
    expectValidationError(await api('POST', '/keys/reset-hwid', {}), 'key');
    expectValidationError(await api('POST', '/keys/reset-hwid', { key: 12 }), 'key');
    expectValidationError(await api('POST', '/keys/reset-hwid', { key: 'a', hwid: 'pc' }), 'hwid');
  });
});

describe('POST /api/v1/keys/api/compensate refuses bad input', () => {
  const cases: Case[] = [
    [{}, 'days'],
    [{ days: 0 }, 'days'],
    [{ days: 366 }, 'days'],
    [{ days: -1 }, 'days'],
    [{ days: 2.5 }, 'days'],
    [{ days: '7' }, 'days'],
    [{ days: 1, includeLifetime: true }, 'includeLifetime'],
  ];
  for (const [body, field] of cases) {
    it(`names ${field} for ${JSON.stringify(body)}`, async () => {
      expectValidationError(await api('POST', '/keys/api/compensate', body), field);
    });
  }

  it('changes nothing when refused', async () => {
    const s = await service();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    const before = (await api('GET', `/keys/api/generated-key${q({ key: key! })}`)).body.data.keys[0].expiresAt;
    await api('POST', '/keys/api/compensate', { days: 366 });
    expect((await api('GET', `/keys/api/generated-key${q({ key: key! })}`)).body.data.keys[0].expiresAt).toBe(before);
  });
});

describe('wrong input never reaches the database as garbage', () => {
  it('keeps a refused edit from changing the key', async () => {
    const s = await service();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', note: 'keep' });
    await redeem(t().app, s.identifier, key!, 'pc-keep');
    expectValidationError(await api('PUT', '/keys/api/key', { key, note: 'changed', status: 'gone' }), 'status');
    const stored = await api('GET', `/keys/api/key${q({ key: key! })}`);
    expect(stored.body.data.keys[0]).toMatchObject({ note: 'keep', status: 'active' });
  });
});

describe('expiry times stay within what the API can write back (ISO 8601, four-digit year)', () => {
  const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

  it('refuses a byDate expiry past 9999-12-31T23:59:59.999Z instead of storing a key it cannot show', async () => {
    const s = await newService();
    const send = (expiresAt: unknown) =>
      call(t().app, 'POST', '/api/v1/keys/api/generate', { key: s.serviceKey, body: { expirationType: 'byDate', expiresAt } });
    expectValidationError(await send(LATEST + 1), 'expiresAt');
    expectValidationError(await send(8_640_000_000_000_000), 'expiresAt');
    // A four-digit year with an offset west of UTC can still land in year 10000.
    expectValidationError(await send('9999-12-31T23:59:59-05:00'), 'expiresAt');
    const status = await call(t().app, 'GET', '/api/v1/keys/api/service/status', { key: s.serviceKey });
    expect(status.body.data.generatedKeys).toBe(0);

    const last = await send(LATEST);
    expect(last.status).toBe(201);
    expect(last.body.data.keys[0].expiresAt).toBe('9999-12-31T23:59:59.999Z');
  });

  it('refuses such an expiry on edits of active and generated keys', async () => {
    const s = await newService();
    const [generated, active] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1, count: 2 });
    await redeem(t().app, s.identifier, active!, 'pc-far');
    const edit = (path: string, key: string) =>
      call(t().app, 'PUT', `/api/v1${path}`, { key: s.serviceKey, body: { key, expiresAt: LATEST + 1 } });
    expectValidationError(await edit('/keys/api/generated-key', generated!), 'expiresAt');
    expectValidationError(await edit('/keys/api/key', active!), 'expiresAt');
    const validate = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${active}&hwid=pc-far`);
    expect(validate.body.data.code).toBe('KEY_VALID');
  });

  it('refuses an extension that would pass the last writable instant, and changes nothing', async () => {
    const s = await newService();
    const nearEnd = LATEST - 10 * DAY_MS;
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDate', expiresAt: nearEnd });
    const extend = (days: number) =>
      call(t().app, 'POST', '/api/v1/keys/api/key/extend-expiration', { key: s.serviceKey, body: { key, days } });
    expectValidationError(await extend(11), 'days');
    const stored = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, { key: s.serviceKey });
    expect(stored.status).toBe(200);
    expect(stored.body.data.keys[0].expiresAt).toBe(iso(nearEnd));
    expect((await extend(10)).status).toBe(200);
  });

  it('compensation stops at the last writable instant, so every key stays readable and valid', async () => {
    const s = await newService();
    const nearEnd = LATEST - DAY_MS;
    const [generated, active] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDate', expiresAt: nearEnd, count: 2 });
    await redeem(t().app, s.identifier, active!, 'pc-end');
    const res = await call(t().app, 'POST', '/api/v1/keys/api/compensate', { key: s.serviceKey, body: { days: 30 } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ activeKeysUpdated: 1, generatedKeysUpdated: 1 });
    const gen = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${generated}`, { key: s.serviceKey });
    expect(gen.body.data.keys[0].expiresAt).toBe(iso(LATEST));
    const act = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${active}`, { key: s.serviceKey });
    expect(act.body.data.keys[0].expiresAt).toBe(iso(LATEST));
    const validate = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${active}&hwid=pc-end`);
    expect(validate.body.data).toMatchObject({ code: 'KEY_VALID', expiresAt: iso(LATEST) });
  });
});
