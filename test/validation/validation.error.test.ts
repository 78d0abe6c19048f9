import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys } from '../helpers/seed.ts';
import { expectError, expectValidationError, serviceSeeder } from '../helpers/records.ts';

const t = useTestApp();
const newService = serviceSeeder(t);

const get = (query: string, headers?: Record<string, string>) => call(t().app, 'GET', `/api/v1/keys/validate${query}`, { headers });
const post = (body: unknown) => call(t().app, 'POST', '/api/v1/keys/validate', { body });

describe('GET|POST /api/v1/keys/validate refuses malformed requests with 400', () => {
  it('needs a service', async () => {
    expectValidationError(await get('?key=a&hwid=b'), 'service');
    expectValidationError(await get('?service=&key=a&hwid=b'), 'service');
    expectValidationError(await post({ key: 'a', hwid: 'b' }), 'service');
  });

  it('refuses wrong JSON types, naming the field', async () => {
    const s = await newService();
    expectValidationError(await post({ service: 5, key: 'a', hwid: 'b' }), 'service');
    expectValidationError(await post({ service: s.id, key: 123, hwid: 'b' }), 'key');
    expectValidationError(await post({ service: s.id, key: 'a', hwid: true }), 'hwid');
    expectValidationError(await post({ service: s.id, key: 'a', hwid: ['b'] }), 'hwid');
    expectValidationError(await post({ service: s.id, key: null, hwid: 'b' }), 'key');
  });

  it('refuses repeated query parameters (an array is not a string)', async () => {
    const s = await newService();
    expectValidationError(await get(`?service=${s.id}&key=a&key=b&hwid=c`), 'key');
    expectValidationError(await get(`?service=${s.id}&key=a&hwid=c&hwid=d`), 'hwid');
  });

  it('refuses oversize values', async () => {
    const s = await newService();
    expectValidationError(await get(`?service=${s.id}&key=a&hwid=${'h'.repeat(257)}`), 'hwid');
    expectValidationError(await post({ service: s.id, key: 'a', hwid: 'h'.repeat(257) }), 'hwid');
    expectValidationError(await post({ service: s.id, key: 'k'.repeat(129), hwid: 'h' }), 'key');
    expectValidationError(await post({ service: 's'.repeat(65), key: 'a', hwid: 'h' }), 'service');
  });

  it('accepts an HWID of exactly 256 characters', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await get(`?service=${s.id}&key=${key}&hwid=${'h'.repeat(256)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.code).toBe('KEY_VALID');
  });

  it('refuses a POST body that is not a JSON object, and malformed JSON, without a 500', async () => {
    expectValidationError(await post([]), 'body');
    expectValidationError(await post('"key"'), 'body');
    expectValidationError(await post('{"service":'), 'body');
    expectValidationError(await post(undefined), 'body');
  });

  it('does not bind or redeem anything on a refused request', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    expectValidationError(await post({ service: s.id, key, hwid: 'h'.repeat(300) }), 'hwid');
    const generated = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, { key: s.serviceKey });
    expect(generated.status).toBe(200);
  });
});

describe('GET|POST /api/v1/keys/validate for an unknown service', () => {
  it('is a 404 NOT_FOUND, by identifier or by id', async () => {
    expectError(await get('?service=no-such-service&key=a&hwid=b'), 404, 'NOT_FOUND');
    expectError(await get('?service=00000000-0000-4000-8000-000000000000&key=a&hwid=b'), 404, 'NOT_FOUND');
    expectError(await post({ service: 'no-such-service', key: 'a', hwid: 'b' }), 404, 'NOT_FOUND');
  });

  it('is a 404 even when the HWID or the key is missing', async () => {
    expectError(await get('?service=no-such-service'), 404, 'NOT_FOUND');
  });

  it('never leaks data in the error', async () => {
    const res = await get('?service=no-such-service&key=a&hwid=b');
    expect(res.body).not.toHaveProperty('data');
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});

describe('GET|POST /api/v1/keys/validate refuses control characters instead of failing in the database', () => {
  it('is a 400 naming the field for a NUL or other control character in service, key or hwid', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    expectValidationError(await get(`?service=${s.id}&key=${key}&hwid=%00%01`), 'hwid');
    expectValidationError(await get(`?service=${s.id}&key=${key}&hwid=pc%0A`), 'hwid');
    expectValidationError(await get(`?service=${s.id}&key=%00&hwid=pc`), 'key');
    expectValidationError(await get(`?service=%00&key=a&hwid=pc`), 'service');
    expectValidationError(await post({ service: s.id, key, hwid: 'a\u0000b' }), 'hwid');
    expectValidationError(await post({ service: s.id, key: 'a\u0000b', hwid: 'pc' }), 'key');
    expectValidationError(await post({ service: 'a\u0000b', key: 'a', hwid: 'pc' }), 'service');
    const generated = await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, { key: s.serviceKey });
    expect(generated.status).toBe(200);
  });

  it('binds only HWIDs the API can look up again: printable characters', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    expectValidationError(await post({ service: s.id, key, hwid: 'pc-\u00e9' }), 'hwid');
    const res = await get(`?service=${s.id}&key=${key}&hwid=${encodeURIComponent('PC 1 ~!@#')}`);
    expect(res.body.data.code).toBe('KEY_VALID');
    const lookup = await call(t().app, 'GET', `/api/v1/keys/api/key?hwid=${encodeURIComponent('PC 1 ~!@#')}`, { key: s.serviceKey });
    expect(lookup.body.data.keys[0].key).toBe(key);
  });

  it('ignores a fingerprint header that is not printable, as if absent', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await get(`?service=${s.id}&key=${key}`, { 'syn-fingerprint': 'pc-\u00e9' });
    expect(res.body.data.code).toBe('HWID_REQUIRED');
    const next = await get(`?service=${s.id}&key=${key}`, { 'syn-fingerprint': 'pc-\u00e9', 'krnl-hwid': 'pc-ok' });
    expect(next.body.data.code).toBe('KEY_VALID');
  });
});
