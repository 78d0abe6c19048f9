import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { bearer, vaultToken } from './vault-helpers.ts';

const testApp = useTestApp();

describe('vault tokens', () => {
  it('refuses a service key and no key on the token route', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const bySvc = await call(app, 'POST', '/api/v1/vault-v3/session/token', { key: service.serviceKey });
    expect(bySvc.status).toBe(401);
    expect(bySvc.body.code).toBe('UNAUTHORIZED');
    expect((await call(app, 'POST', '/api/v1/vault-v3/session/token')).status).toBe(401);
    expect((await call(app, 'POST', '/api/v1/vault-v3/session/token?apiKey=' + service.account.accountKey)).status).toBe(401);
  });

  it('refuses a token once it is 300 seconds old', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const headers = bearer(await vaultToken(app, account.accountKey));
    clock.advance(299_000);
    expect((await call(app, 'GET', '/api/v3/vault/scripts', { headers })).status).toBe(200);
    clock.advance(1_000);
    const res = await call(app, 'GET', '/api/v3/vault/scripts', { headers });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('refuses a token as soon as the account key that obtained it is regenerated', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const headers = bearer(await vaultToken(app, account.accountKey));
    expect((await call(app, 'GET', '/api/v3/vault/scripts', { headers })).status).toBe(200);
    const regenerated = await call(app, 'POST', '/api/v1/account/api-key/regenerate', { key: account.accountKey });
    expect(regenerated.status).toBe(200);
    expect((await call(app, 'GET', '/api/v3/vault/scripts', { headers })).status).toBe(401);
    const fresh = bearer(await vaultToken(app, regenerated.body.data.apiKey));
    expect((await call(app, 'GET', '/api/v3/vault/scripts', { headers: fresh })).status).toBe(200);
  });

  it('refuses a token of a disabled account', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const headers = bearer(await vaultToken(app, account.accountKey));
    await ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', account.id).execute();
    expect((await call(app, 'GET', '/api/v3/vault/scripts', { headers })).status).toBe(401);
  });

  it('refuses forged and tampered tokens, account keys and service keys on the vault API', async () => {
    const { app, ctx } = testApp();
    const service = await seedService(ctx);
    const token = await vaultToken(app, service.account.accountKey);
    const [accountId, expires, nonce, mac] = token.slice(4).split('.');
    const tampered = [
      `kwv_${accountId}.${Number(expires) + 1000000}.${nonce}.${mac}`,
      `kwv_${accountId}.${expires}.${nonce}.${mac!.slice(0, -2)}AA`,
      `kwv_${(await seedAccount(ctx)).id}.${expires}.${nonce}.${mac}`,
      'kwv_garbage',
      service.account.accountKey,
      service.serviceKey,
    ];
    for (const t of tampered) {
      const res = await call(app, 'GET', '/api/v3/vault/scripts', { headers: bearer(t) });
      expect(res.status, t).toBe(401);
    }
    expect((await call(app, 'GET', '/api/v3/vault/scripts')).status).toBe(401);
  });
});

describe('vault isolation', () => {
  it('answers 404 for another account’s script, by id and by name, on every verb', async () => {
    const { app, ctx } = testApp();
    const owner = bearer(await vaultToken(app, (await seedAccount(ctx)).accountKey));
    const intruder = bearer(await vaultToken(app, (await seedAccount(ctx)).accountKey));
    const created = await call(app, 'POST', '/api/v3/vault/scripts', { headers: owner, body: { name: 'private', code: 'x' } });
    const id = created.body.data.id as string;
    for (const ref of [id, 'private']) {
      expect((await call(app, 'GET', `/api/v3/vault/scripts/${ref}`, { headers: intruder })).status).toBe(404);
      expect((await call(app, 'PUT', `/api/v3/vault/scripts/${ref}`, { headers: intruder, body: { code: 'pwned' } })).status).toBe(404);
      expect((await call(app, 'DELETE', `/api/v3/vault/scripts/${ref}`, { headers: intruder })).status).toBe(404);
    }
    expect((await call(app, 'GET', '/api/v3/vault/scripts', { headers: intruder })).body.data.total).toBe(0);
    expect((await call(app, 'GET', `/api/v3/vault/scripts/${id}`, { headers: owner })).body.data.code).toBe('x');
    // The same name is free for another account.
    expect((await call(app, 'POST', '/api/v3/vault/scripts', { headers: intruder, body: { name: 'private', code: 'y' } })).status).toBe(
      201,
    );
  });
});
