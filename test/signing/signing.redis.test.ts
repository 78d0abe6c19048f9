import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

// With REDIS_URL, a rotation reaches the other instances' opened keys over Redis pub/sub instead of the database.
const t = useTestApp({ REDIS_URL: process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
let second: App;
beforeAll(async () => {
  second = await anotherInstance(t());
});
afterAll(async () => {
  await second?.close();
});

const NONCE = 'RedisNonce0123456789abcd';
const verifies = (publicKey: string, text: string, signature: string) =>
  verify(
    null,
    Buffer.from(text),
    createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey, 'base64').toString('base64url') }, format: 'jwk' }),
    Buffer.from(signature, 'base64'),
  );

it('signs with the rotated key on another instance, told through Redis', async () => {
  const s = await seedService(t().ctx);
  const [key] = await generateKeys(t().app, s.serviceKey);
  const signedOnSecond = async () => {
    const d = (await call(second, 'GET', `/api/v1/keys/validate?service=${s.id}&key=${key}&hwid=pc&nonce=${NONCE}`)).body.data;
    return {
      text: `keyward-validate-v1|${s.id}|${key}|pc|${NONCE}|${d.code}|${d.valid}||${d.serverTime}`,
      signature: d.signature as string,
    };
  };
  const old = (await call(t().app, 'GET', `/api/v1/public/services/${s.id}/signing-key`)).body.data.publicKey as string;
  const before = await signedOnSecond();
  expect(verifies(old, before.text, before.signature)).toBe(true);
  const rotated = await call(t().app, 'POST', '/api/v1/keys/api/signing-key/rotate', { key: s.serviceKey });
  expect(rotated.status).toBe(200);
  const fresh = rotated.body.data.publicKey as string;
  await expect
    .poll(async () => {
      const after = await signedOnSecond();
      return verifies(fresh, after.text, after.signature);
    })
    .toBe(true);
  expect((await call(second, 'GET', `/api/v1/public/services/${s.identifier}/signing-key`)).body.data.publicKey).toBe(fresh);
});
