import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { bearer, vaultToken } from './vault-helpers.ts';

const testApp = useTestApp();

describe('vault', () => {
  it('issues a 300-second token for the account key', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const res = await call(app, 'POST', '/api/v1/vault-v3/session/token', { key: account.accountKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { token: expect.any(String), expiresIn: 300, apiBaseUrl: 'http://keyward.test/api/v3/vault' },
    });
  });

  it('stores, lists, reads, updates and deletes scripts', async () => {
    const { app, ctx, clock } = testApp();
    const account = await seedAccount(ctx);
    const headers = bearer(await vaultToken(app, account.accountKey));
    const code = 'print("héllo")';

    const created = await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'main.lua', code } });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      name: 'main.lua',
      size: Buffer.byteLength(code),
      createdAt: new Date(clock.now).toISOString(),
      updatedAt: new Date(clock.now).toISOString(),
    });
    const id = created.body.data.id as string;

    const list = await call(app, 'GET', '/api/v3/vault/scripts', { headers });
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(list.body.data.items).toEqual([created.body.data]);
    expect(list.body.data.items[0].code).toBeUndefined();

    const byName = await call(app, 'GET', '/api/v3/vault/scripts/main.lua', { headers });
    expect(byName.status).toBe(200);
    expect(byName.body.data).toEqual({ ...created.body.data, code });
    const byId = await call(app, 'GET', `/api/v3/vault/scripts/${id}`, { headers });
    expect(byId.body.data.code).toBe(code);

    clock.advance(1000);
    const updated = await call(app, 'PUT', `/api/v3/vault/scripts/${id}`, { headers, body: { name: 'renamed', code: 'return 1' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, name: 'renamed', size: 8, updatedAt: new Date(clock.now).toISOString() });
    expect((await call(app, 'GET', '/api/v3/vault/scripts/renamed', { headers })).body.data.code).toBe('return 1');
    expect((await call(app, 'GET', '/api/v3/vault/scripts/main.lua', { headers })).status).toBe(404);

    const deleted = await call(app, 'DELETE', '/api/v3/vault/scripts/renamed', { headers });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ deleted: 1 });
    expect((await call(app, 'GET', `/api/v3/vault/scripts/${id}`, { headers })).status).toBe(404);
  });

  it('keeps the code encrypted at rest', async () => {
    const { app, ctx } = testApp();
    const account = await seedAccount(ctx);
    const headers = bearer(await vaultToken(app, account.accountKey));
    const code = 'local secret_marker_93817 = "do not store me in clear"';
    const created = await call(app, 'POST', '/api/v3/vault/scripts', { headers, body: { name: 'sealed', code } });
    const row = await ctx.db.selectFrom('vaultScripts').selectAll().where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
    expect(row.codeSealed).not.toContain('secret_marker_93817');
    expect(Buffer.from(row.codeSealed, 'base64url').toString('latin1')).not.toContain('secret_marker_93817');
    expect(ctx.sealer.open(row.codeSealed)).toBe(code);
  });

  it('accepts a token on another instance sharing only the database and the secret', async () => {
    const { app, ctx, clock, config, database } = testApp();
    const account = await seedAccount(ctx);
    const token = await vaultToken(app, account.accountKey);
    const second = await buildApp({
      config,
      database: { db: ctx.db, dialect: ctx.dialect, source: database.handle.source, close: async () => {} },
      clock: clock.read,
      logger: false,
    });
    try {
      const created = await call(second, 'POST', '/api/v3/vault/scripts', {
        headers: bearer(token),
        body: { name: 'elsewhere', code: 'x' },
      });
      expect(created.status).toBe(201);
      expect((await call(app, 'GET', '/api/v3/vault/scripts/elsewhere', { headers: bearer(token) })).body.data.code).toBe('x');
    } finally {
      await second.close();
    }
  });
});
