import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { bearer, vaultToken } from './vault-helpers.ts';

const testApp = useTestApp();

async function vaultHeaders() {
  const { app, ctx } = testApp();
  return bearer(await vaultToken(app, (await seedAccount(ctx)).accountKey));
}

describe('vault input', () => {
  it('refuses a duplicate name with 409, on create and on rename', async () => {
    const { app } = testApp();
    const headers = await vaultHeaders();
    expect((await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'one', code: '1' } })).status).toBe(201);
    expect((await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'two', code: '2' } })).status).toBe(201);
    const dup = await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'one', code: 'x' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('CONFLICT');
    const rename = await call(app, 'PUT', '/api/v3/vault/scripts/two', { headers, body: { name: 'one' } });
    expect(rename.status).toBe(409);
  });

  it('refuses names outside the VSS rule', async () => {
    const { app } = testApp();
    const headers = await vaultHeaders();
    for (const name of ['', 'has space', 'x'.repeat(65), 'semi;colon', '123e4567-e89b-12d3-a456-426614174000']) {
      const res = await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name, code: 'x' } });
      expect(res.status, name).toBe(400);
      expect(res.body.field).toBe('name');
    }
  });

  it('refuses missing fields, wrong types, unknown fields and empty updates', async () => {
    const { app } = testApp();
    const headers = await vaultHeaders();
    const cases: Array<[unknown, string]> = [
      [{ name: 'a' }, 'code'],
      [{ code: 'a' }, 'name'],
      [{ name: 'a', code: 5 }, 'code'],
      [{ name: 'a', code: 'x', visible: true }, 'visible'],
      [[], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await call(app, 'POST', '/api/v3/vault/scripts', { headers, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.field).toBe(field);
    }
    await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'exists', code: 'x' } });
    expect((await call(app, 'PUT', '/api/v3/vault/scripts/exists', { headers, body: {} })).status).toBe(400);
    expect((await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: '{not json' })).status).toBe(400);
  });

  it('answers 404 for a script that does not exist', async () => {
    const { app } = testApp();
    const headers = await vaultHeaders();
    expect((await call(app, 'GET', '/api/v3/vault/scripts/nothing', { headers })).status).toBe(404);
    expect((await call(app, 'GET', '/api/v3/vault/scripts/123e4567-e89b-12d3-a456-426614174000', { headers })).status).toBe(404);
  });

  it('accepts code over the 1 MB general body limit but not over 40 MB', async () => {
    const { app } = testApp();
    const headers = await vaultHeaders();
    const big = 'a'.repeat(2 * 1024 * 1024);
    const ok = await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'big', code: big } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.size).toBe(big.length);
    const huge = 'a'.repeat(41_943_041);
    const tooBig = await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'huge', code: huge } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
