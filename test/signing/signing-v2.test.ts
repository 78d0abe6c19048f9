import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys } from '../helpers/seed.ts';
import { serviceSeeder } from '../helpers/records.ts';
import { percentEncode } from '../../src/modules/signing/signing.service.ts';

// Contract §22 "Signed answers v2", checked with Node's own crypto and an encoder written here from RFC 3986, not the
// code under test.
const t = useTestApp({ HWID_HEADERS: 'syn-fingerprint' });
const newService = serviceSeeder(t);
const NONCE = 'AbCdEfGh0123456789xyzXYZ';

const rfc3986 = (value: string) =>
  [...Buffer.from(value, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

type Data = { valid: boolean; code: string; isPremium: boolean; expiresAt: string | null; serverTime: number; signature: string };
const v2Text = (serviceId: string, key: string, hwid: string, d: Data, changes: Partial<Data> = {}) => {
  const f = { ...d, ...changes };
  return [
    'keyward-validate-v2',
    serviceId,
    key,
    hwid,
    NONCE,
    f.code,
    String(f.valid),
    String(f.isPremium),
    f.expiresAt ?? '',
    String(f.serverTime),
  ]
    .map(rfc3986)
    .join('|');
};

async function verifier(service: string) {
  const res = await call(t().app, 'GET', `/api/v1/public/services/${service}/signing-key`);
  const raw = Buffer.from(res.body.data.publicKey as string, 'base64');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  return (text: string, signature: string) => verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64'));
}

describe('GET|POST /keys/validate with nonce and sig=2', () => {
  it('signs the v2 text, isPremium included, with every field percent-encoded', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', isPremium: true });
    // An HWID holding the separator and other reserved characters: v1 could not tell "a|b" fields apart.
    const hwid = 'pc|1 x/~';
    const res = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?${new URLSearchParams({ service: s.id, key: key!, hwid, nonce: NONCE, sig: '2' })}`,
    );
    expect(res.status).toBe(200);
    const d = res.body.data as Data;
    expect(d).toMatchObject({ valid: true, code: 'KEY_VALID', isPremium: true });
    const holds = await verifier(s.id);
    const text = v2Text(s.id, key!, hwid, d);
    expect(text).toContain('|pc%7C1%20x%2F~|');
    expect(holds(text, d.signature)).toBe(true);
    // A flipped isPremium no longer verifies; nor does the v1 text.
    expect(holds(v2Text(s.id, key!, hwid, d, { isPremium: false }), d.signature)).toBe(false);
    expect(holds(`keyward-validate-v1|${s.id}|${key}|${hwid}|${NONCE}|${d.code}|${d.valid}||${d.serverTime}`, d.signature)).toBe(false);
  });

  it('takes sig=2 in a JSON body too, and covers expiresAt', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDate', expiresAt: '2030-01-01T00:00:00.000Z' });
    const res = await call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key, hwid: 'pc-2', nonce: NONCE, sig: 2 } });
    const d = res.body.data as Data;
    expect(d.isPremium).toBe(false);
    expect(d.expiresAt).toBe('2030-01-01T00:00:00.000Z');
    const holds = await verifier(s.id);
    expect(holds(v2Text(s.id, key!, 'pc-2', d), d.signature)).toBe(true);
    expect(v2Text(s.id, key!, 'pc-2', d)).toContain('|2030-01-01T00%3A00%3A00.000Z|');
  });

  it('signs an empty HWID when it came only from a fingerprint header', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?${new URLSearchParams({ service: s.id, key: key!, nonce: NONCE, sig: '2' })}`,
      {
        headers: { 'syn-fingerprint': 'header-pc' },
      },
    );
    const d = res.body.data as Data;
    expect(d.code).toBe('KEY_VALID');
    const holds = await verifier(s.id);
    expect(holds(v2Text(s.id, key!, '', d), d.signature)).toBe(true);
    expect(holds(v2Text(s.id, key!, 'header-pc', d), d.signature)).toBe(false);
  });

  it('keeps v1 as it was without sig (the HWID from the header signed)', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service: s.id, key: key!, nonce: NONCE })}`, {
      headers: { 'syn-fingerprint': 'header-pc' },
    });
    const d = res.body.data as Data;
    const holds = await verifier(s.id);
    expect(holds(`keyward-validate-v1|${s.id}|${key}|header-pc|${NONCE}|${d.code}|${d.valid}||${d.serverTime}`, d.signature)).toBe(true);
  });

  it('percent-encodes UTF-8 bytes and reserved characters as RFC 3986 says', () => {
    for (const value of ['é|ü', "!'()*", 'a-b.c_d~e', '%7C', ' +\u{1F600}']) expect(percentEncode(value)).toBe(rfc3986(value));
    expect(percentEncode('é|')).toBe('%C3%A9%7C');
  });

  it('refuses a sig other than 1 or 2 naming it', async () => {
    const s = await newService();
    const res = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?${new URLSearchParams({ service: s.id, key: 'x', nonce: NONCE, sig: '3' })}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('sig');
  });
});
