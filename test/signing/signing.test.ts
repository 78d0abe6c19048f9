import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { DAY_MS, expectError, expectValidationError, serviceSeeder } from '../helpers/records.ts';
import { uploadScript } from '../scripts/script-helpers.ts';

const t = useTestApp();
const newService = serviceSeeder(t);
const NONCE = 'AbCdEfGh0123456789xyzXYZ';

/** Node's own Ed25519 verify, independent of the code under test: the raw key goes in as a JWK. */
function publicKeyFrom(base64: string): KeyObject {
  const raw = Buffer.from(base64, 'base64');
  expect(raw.length).toBe(32);
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}
const verifies = (publicKey: string, text: string, signature: string) =>
  verify(null, Buffer.from(text, 'utf8'), publicKeyFrom(publicKey), Buffer.from(signature, 'base64'));

type Data = { valid: boolean; code: string; expiresAt: string | null; serverTime: number; signature: string };
const textOf = (serviceId: string, key: string, hwid: string, nonce: string, d: Data) =>
  `keyward-validate-v1|${serviceId}|${key}|${hwid}|${nonce}|${d.code}|${d.valid}|${d.expiresAt ?? ''}|${d.serverTime}`;

const publicKeyOf = async (service: string) => {
  const res = await call(t().app, 'GET', `/api/v1/public/services/${service}/signing-key`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.algorithm).toBe('Ed25519');
  return res.body.data.publicKey as string;
};
const validate = (query: Record<string, string>) => call(t().app, 'GET', `/api/v1/keys/validate?${new URLSearchParams(query)}`);

describe('GET /api/v1/public/services/:service/signing-key', () => {
  it('answers the same 32-byte Ed25519 public key by id and by identifier, made once on first use', async () => {
    const s = await newService();
    const byId = await publicKeyOf(s.id);
    expect(await publicKeyOf(s.identifier)).toBe(byId);
    const rows = await t().ctx.db.selectFrom('serviceSigningKeys').selectAll().where('serviceId', '=', s.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.publicKey).toBe(byId);
    // Sealed at rest: the column holds neither PEM nor the DER a private key exports to.
    expect(rows[0]!.privateKeySealed).not.toMatch(/PRIVATE KEY|^MC4CAQAwBQYDK2Vw/);
    expect(t().ctx.sealer.openBuffer(rows[0]!.privateKeySealed).length).toBe(48);
  });

  it('gives two instances asking at once for a new service one key pair', async () => {
    const s = await newService();
    const other = await anotherInstance(t());
    try {
      const [a, b] = await Promise.all([
        call(t().app, 'GET', `/api/v1/public/services/${s.id}/signing-key`),
        call(other, 'GET', `/api/v1/public/services/${s.id}/signing-key`),
      ]);
      expect(a.body.data.publicKey).toBe(b.body.data.publicKey);
      const rows = await t().ctx.db.selectFrom('serviceSigningKeys').select('publicKey').where('serviceId', '=', s.id).execute();
      expect(rows.map((r) => r.publicKey)).toEqual([a.body.data.publicKey]);
    } finally {
      await other.close();
    }
  });

  it('is 404 for an unknown service', async () => {
    expectError(await call(t().app, 'GET', '/api/v1/public/services/no-such-service/signing-key'), 404, 'NOT_FOUND');
    expectError(await call(t().app, 'GET', '/api/v1/public/services/3f2504e0-4f89-11d3-9a0c-0305e82c3301/signing-key'), 404, 'NOT_FOUND');
  });
});

describe('/keys/validate with a nonce answers a signature that node:crypto verifies', () => {
  it('signs a valid verdict (GET) over the contract text, with serverTime from the clock', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 3 });
    const res = await validate({ service: s.identifier, key: key!, hwid: 'pc-1', nonce: NONCE });
    expect(res.status).toBe(200);
    const d = res.body.data as Data;
    expect(d).toMatchObject({ valid: true, code: 'KEY_VALID', serverTime: t().clock.now });
    expect(d.expiresAt).toBe(new Date(t().clock.now + 3 * DAY_MS).toISOString());
    const publicKey = await publicKeyOf(s.id);
    // The service id (not the identifier the client named) is what is signed.
    expect(verifies(publicKey, textOf(s.id, key!, 'pc-1', NONCE, d), d.signature)).toBe(true);
    expect(verifies(publicKey, textOf(s.id, key!, 'pc-1', NONCE.replace('A', 'B'), d), d.signature)).toBe(false);
    expect(verifies(publicKey, textOf(s.id, key!, 'pc-1', NONCE, { ...d, valid: false }), d.signature)).toBe(false);
  });

  it('signs refusals too (POST), with empty fields for what was not sent', async () => {
    const s = await newService();
    const res = await call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, nonce: NONCE } });
    const d = res.body.data as Data;
    expect(d).toMatchObject({ valid: false, code: 'HWID_REQUIRED', expiresAt: null });
    expect(verifies(await publicKeyOf(s.id), textOf(s.id, '', '', NONCE, d), d.signature)).toBe(true);
    const wrong = await call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key: 'nope', hwid: 'h', nonce: NONCE } });
    const w = wrong.body.data as Data;
    expect(w.code).toBe('KEY_INCORRECT');
    expect(verifies(await publicKeyOf(s.id), textOf(s.id, 'nope', 'h', NONCE, w), w.signature)).toBe(true);
  });

  it('signs the HWID taken from an executor header', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${key}&nonce=${NONCE}`, {
      headers: { 'syn-fingerprint': 'fp-77' },
    });
    const d = res.body.data as Data;
    expect(d.code).toBe('KEY_VALID');
    expect(verifies(await publicKeyOf(s.id), textOf(s.id, key!, 'fp-77', NONCE, d), d.signature)).toBe(true);
  });

  it('answers byte for byte as before without a nonce', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    await validate({ service: s.id, key: key!, hwid: 'pc', nonce: NONCE });
    for (let i = 0; i < 2; i++) {
      const res = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${key}&hwid=pc`);
      expect(JSON.stringify(res.body)).toBe(
        '{"success":true,"data":{"valid":true,"code":"KEY_VALID","message":"The key is valid","isPremium":false,"expiresAt":null}}',
      );
    }
  });

  it('refuses a malformed nonce with a 400 naming it', async () => {
    const s = await newService();
    for (const nonce of ['', 'short123', 'a'.repeat(65), 'abcdefgh-12345678', 'abcdefgh 12345678', 'abcdéfgh12345678']) {
      const res = await validate({ service: s.id, key: 'k', hwid: 'h', nonce });
      expectValidationError(res, 'nonce');
      expect(res.body.error).toContain('letters');
    }
    expectValidationError(
      await call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, nonce: 12345678901234567 } }),
      'nonce',
    );
    expectValidationError(await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.id}&nonce=${NONCE}&nonce=${NONCE}`), 'nonce');
    expect(await t().ctx.db.selectFrom('serviceSigningKeys').select('serviceId').where('serviceId', '=', s.id).execute()).toEqual([]);
  });

  it('is 404 for an unknown service, signed or not', async () => {
    expectError(await validate({ service: 'no-such-service', key: 'k', hwid: 'h', nonce: NONCE }), 404, 'NOT_FOUND');
  });

  it('signs the Lua library check with the service id and HWID it covers', async () => {
    const s = await newService();
    const script = await uploadScript(t().app, s, { name: 'signed-check', code: 'print(1)' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await call(t().app, 'GET', `/api/v1/lua/check/${script.id}?key=${key}&hwid=lua-pc&nonce=${NONCE}`);
    const d = res.body.data as Data & { serviceId: string; hwid: string };
    expect(d).toMatchObject({ valid: true, code: 'KEY_VALID', serviceId: s.id, hwid: 'lua-pc' });
    expect(verifies(await publicKeyOf(s.id), textOf(s.id, key!, 'lua-pc', NONCE, d), d.signature)).toBe(true);
    expectValidationError(await call(t().app, 'GET', `/api/v1/lua/check/${script.id}?key=${key}&nonce=bad`), 'nonce');
    const plain = await call(t().app, 'GET', `/api/v1/lua/check/${script.id}?key=${key}&hwid=lua-pc`);
    expect(Object.keys(plain.body.data).sort()).toEqual(['code', 'expiresAt', 'isPremium', 'message', 'valid']);
  });
});

describe('POST /api/v1/keys/api/signing-key/rotate', () => {
  const rotate = (key: string, headers?: Record<string, string>) =>
    call(t().app, 'POST', '/api/v1/keys/api/signing-key/rotate', { key, headers });

  it('replaces the key pair: the public route and later signatures follow, the old key no longer verifies; audited', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const before = await publicKeyOf(s.id);
    await validate({ service: s.id, key: key!, hwid: 'pc', nonce: NONCE });
    const res = await rotate(s.serviceKey);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.algorithm).toBe('Ed25519');
    const after = res.body.data.publicKey as string;
    expect(after).not.toBe(before);
    expect(await publicKeyOf(s.identifier)).toBe(after);
    const d = (await validate({ service: s.id, key: key!, hwid: 'pc', nonce: NONCE })).body.data as Data;
    expect(verifies(after, textOf(s.id, key!, 'pc', NONCE, d), d.signature)).toBe(true);
    expect(verifies(before, textOf(s.id, key!, 'pc', NONCE, d), d.signature)).toBe(false);
    const audit = await t()
      .ctx.db.selectFrom('auditLog')
      .select(['action', 'actorKind', 'accountId'])
      .where('serviceId', '=', s.id)
      .where('action', '=', 'signingKey.rotate')
      .execute();
    expect(audit).toEqual([{ action: 'signingKey.rotate', actorKind: 'service-key', accountId: s.account.id }]);
  });

  it('reaches every instance: another instance signs with the new key once told', async () => {
    const s = await newService();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const other = await anotherInstance(t());
    try {
      const otherSigned = async () =>
        (await call(other, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${key}&hwid=pc&nonce=${NONCE}`)).body.data as Data;
      const old = await publicKeyOf(s.id);
      expect(verifies(old, textOf(s.id, key!, 'pc', NONCE, await otherSigned()), (await otherSigned()).signature)).toBe(true);
      const fresh = (await rotate(s.serviceKey)).body.data.publicKey as string;
      // PostgreSQL's bus delivers asynchronously: poll until the other instance has dropped its copy.
      await expect
        .poll(async () => {
          const d = await otherSigned();
          return verifies(fresh, textOf(s.id, key!, 'pc', NONCE, d), d.signature);
        })
        .toBe(true);
    } finally {
      await other.close();
    }
  });

  it('needs allowManageKeys on a service key', async () => {
    const s = await newService();
    const before = await publicKeyOf(s.id);
    await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: { allowManageKeys: false } });
    const res = await rotate(s.serviceKey);
    expectError(res, 403, 'PERMISSION_DENIED');
    expect(res.body.error).toBe('This API key is not permitted for this action (allowManageKeys)');
    expect(await publicKeyOf(s.id)).toBe(before);
  });

  it("acts for the owner's account key, and looks like 404 for another account's service", async () => {
    const s = await newService();
    const stranger = await seedService(t().ctx);
    const before = await publicKeyOf(s.id);
    expectError(await rotate(stranger.account.accountKey, { 'x-service-id': s.id }), 404, 'NOT_FOUND');
    expect(await publicKeyOf(s.id)).toBe(before);
    const own = await rotate(s.account.accountKey, { 'x-service-id': s.id });
    expect(own.status).toBe(200);
    expect(await publicKeyOf(s.id)).toBe(own.body.data.publicKey);
  });

  it('is 401 without a key', async () => {
    expectError(await call(t().app, 'POST', '/api/v1/keys/api/signing-key/rotate'), 401, 'UNAUTHORIZED');
  });
});
