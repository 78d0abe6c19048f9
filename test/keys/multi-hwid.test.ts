import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, type SeededService } from '../helpers/seed.ts';
import { expectActiveKey, expectError, expectGeneratedKey, expectValidationError, serviceSeeder } from '../helpers/records.ts';

// Contract §7.1: several HWIDs per key.
const t = useTestApp();
const newService = serviceSeeder(t);

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, s: SeededService, body?: unknown) =>
  call(t().app, method, `/api/v1${path}`, { key: s.serviceKey, body });
const validate = async (s: SeededService, key: string, hwid: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key, hwid })}`)).body.data
    .code as string;
const record = async (s: SeededService, key: string) => {
  const res = await api('GET', `/keys/api/key?key=${key}`, s);
  expect(res.status).toBe(200);
  expectActiveKey(res.body.data.keys[0]);
  return res.body.data.keys[0] as { hwid: string | null; hwids: string[]; maxHwids: number };
};
const storedHwids = async (key: string) =>
  (await t().ctx.db.selectFrom('keyHwids').select('hwid').where('key', '=', key).orderBy('position').execute()).map((r) => r.hwid);

async function keyWithSlots(s: SeededService, maxHwids: number) {
  const res = await api('POST', '/keys/api/generate', s, { expirationType: 'lifetime', maxHwids });
  expect(res.status).toBe(201);
  expectGeneratedKey(res.body.data.keys[0]);
  expect(res.body.data.keys[0].maxHwids).toBe(maxHwids);
  return res.body.data.keys[0].key as string;
}

describe('several HWIDs per key', () => {
  it('binds up to maxHwids distinct HWIDs in binding order, then answers KEY_HWID_LOCKED', async () => {
    const s = await newService();
    const key = await keyWithSlots(s, 3);
    for (const hwid of ['pc-a', 'pc-b', 'pc-c']) expect(await validate(s, key, hwid)).toBe('KEY_VALID');
    expect(await validate(s, key, 'pc-d')).toBe('KEY_HWID_LOCKED');
    for (const hwid of ['pc-c', 'pc-a', 'pc-b']) expect(await validate(s, key, hwid)).toBe('KEY_VALID');
    expect(await record(s, key)).toMatchObject({ hwid: 'pc-a', hwids: ['pc-a', 'pc-b', 'pc-c'], maxHwids: 3 });
    expect(await storedHwids(key)).toEqual(['pc-a', 'pc-b', 'pc-c']);
  });

  it('defaults to one HWID, as before', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    expect(await validate(s, key!, 'one')).toBe('KEY_VALID');
    expect(await validate(s, key!, 'two')).toBe('KEY_HWID_LOCKED');
    expect(await record(s, key!)).toMatchObject({ hwid: 'one', hwids: ['one'], maxHwids: 1 });
  });

  it('GET /keys/api/key?hwid= finds a key by any of its HWIDs, not only the first', async () => {
    const s = await newService();
    const key = await keyWithSlots(s, 2);
    await validate(s, key, 'first-hw');
    await validate(s, key, 'second-hw');
    const res = await api('GET', '/keys/api/key?hwid=second-hw', s);
    expect(res.status).toBe(200);
    expect(res.body.data.keys.map((k: { key: string }) => k.key)).toEqual([key]);
    expect(res.body.data.keys[0].hwids).toEqual(['first-hw', 'second-hw']);
  });

  it('PUT hwid "x" leaves exactly ["x"]; PUT hwid null clears every HWID', async () => {
    const s = await newService();
    const key = await keyWithSlots(s, 3);
    for (const hwid of ['h1', 'h2', 'h3']) await validate(s, key, hwid);

    const set = await api('PUT', '/keys/api/key', s, { key, hwid: 'x' });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ hwid: 'x', hwids: ['x'] });
    expect(await storedHwids(key)).toEqual(['x']);
    expect(await validate(s, key, 'h1')).toBe('KEY_VALID'); // a free slot again: 1 of 3 bound

    const cleared = await api('PUT', '/keys/api/key', s, { key, hwid: null });
    expect(cleared.body.data).toMatchObject({ hwid: null, hwids: [] });
    expect(await storedHwids(key)).toEqual([]);
    const row = await t().ctx.db.selectFrom('activeKeys').select(['hwid', 'hwidCount']).where('key', '=', key).executeTakeFirstOrThrow();
    expect(row).toEqual({ hwid: null, hwidCount: 0 });
  });

  it('a reset clears every HWID and frees every slot', async () => {
    const s = await newService();
    const key = await keyWithSlots(s, 2);
    await validate(s, key, 'r1');
    await validate(s, key, 'r2');
    const res = await api('POST', '/keys/reset-hwid', s, { key });
    expect(res.status).toBe(200);
    expect(await record(s, key)).toMatchObject({ hwid: null, hwids: [] });
    expect(await validate(s, key, 'r3')).toBe('KEY_VALID');
    expect(await validate(s, key, 'r4')).toBe('KEY_VALID');
    expect(await validate(s, key, 'r1')).toBe('KEY_HWID_LOCKED');
  });

  it('lowering maxHwids below the bound count keeps the bound HWIDs and binds no new one', async () => {
    const s = await newService();
    const key = await keyWithSlots(s, 3);
    for (const hwid of ['k1', 'k2', 'k3']) await validate(s, key, hwid);
    const res = await api('PUT', '/keys/api/key', s, { key, maxHwids: 1 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ maxHwids: 1, hwids: ['k1', 'k2', 'k3'] });
    for (const hwid of ['k1', 'k2', 'k3']) expect(await validate(s, key, hwid)).toBe('KEY_VALID');
    expect(await validate(s, key, 'k4')).toBe('KEY_HWID_LOCKED');
    // Raising it again opens exactly the new slots.
    await api('PUT', '/keys/api/key', s, { key, maxHwids: 4 });
    expect(await validate(s, key, 'k4')).toBe('KEY_VALID');
    expect(await validate(s, key, 'k5')).toBe('KEY_HWID_LOCKED');
  });

  it('a generated key carries maxHwids, editable before it is redeemed, into the active key', async () => {
    const s = await newService();
    const key = await keyWithSlots(s, 1);
    const edit = await api('PUT', '/keys/api/generated-key', s, { key, maxHwids: 2 });
    expect(edit.status).toBe(200);
    expect(edit.body.data.maxHwids).toBe(2);
    expect(await validate(s, key, 'g1')).toBe('KEY_VALID');
    expect(await validate(s, key, 'g2')).toBe('KEY_VALID');
    expect(await validate(s, key, 'g3')).toBe('KEY_HWID_LOCKED');
    expect(await record(s, key)).toMatchObject({ maxHwids: 2, hwids: ['g1', 'g2'] });
  });

  it('deleting a key removes its HWIDs', async () => {
    const s = await newService();
    const key = await keyWithSlots(s, 2);
    await validate(s, key, 'd1');
    expect((await api('DELETE', `/keys/api/key?key=${key}`, s)).status).toBe(200);
    expect(await storedHwids(key)).toEqual([]);
  });
});

describe('maxHwids input', () => {
  it.each([0, 101, 1.5, '2', null])('rejects maxHwids %j on generate and on both edits with a 400 naming it', async (maxHwids) => {
    const s = await newService();
    expectValidationError(await api('POST', '/keys/api/generate', s, { expirationType: 'lifetime', maxHwids }), 'maxHwids');
    const [generated] = await generateKeys(t().app, s.serviceKey);
    expectValidationError(await api('PUT', '/keys/api/generated-key', s, { key: generated, maxHwids }), 'maxHwids');
    await validate(s, generated!, 'pc');
    expectValidationError(await api('PUT', '/keys/api/key', s, { key: generated, maxHwids }), 'maxHwids');
  });

  it('accepts the bounds 1 and 100', async () => {
    const s = await newService();
    expect((await api('POST', '/keys/api/generate', s, { expirationType: 'lifetime', maxHwids: 1 })).status).toBe(201);
    expect((await api('POST', '/keys/api/generate', s, { expirationType: 'lifetime', maxHwids: 100 })).status).toBe(201);
  });

  it("another account's key is a 404 on edit and is never changed", async () => {
    const owner = await newService();
    const other = await newService();
    const key = await keyWithSlots(owner, 2);
    await validate(owner, key, 'own');
    expectError(await api('PUT', '/keys/api/key', other, { key, maxHwids: 50, hwid: null }), 404, 'NOT_FOUND');
    expectError(await api('PUT', '/keys/api/generated-key', other, { key, maxHwids: 50 }), 404, 'NOT_FOUND');
    expect(await record(owner, key)).toMatchObject({ maxHwids: 2, hwids: ['own'] });
    const found = await api('GET', '/keys/api/key?hwid=own', other);
    expectError(found, 404, 'NOT_FOUND');
  });
});
