import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount } from '../helpers/seed.ts';
import { createAccount, revealAccountKey } from '../../src/modules/accounts/accounts.service.ts';
import { digest } from '../../src/lib/secrets.ts';

const t = useTestApp();
const KEY_SHAPE = /^kw_[A-Za-z0-9]{40}$/;

describe('GET /api/v1/account', () => {
  it('answers the calling account without secrets', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'GET', '/api/v1/account', { key: a.accountKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: a.id,
        username: a.username,
        role: 'user',
        twoFactorEnabled: false,
        createdAt: '2026-11-22T10:00:00.000Z',
        discordUserId: null,
      },
    });
  });

  it('accepts the account key as a Bearer token', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'GET', '/api/v1/account', { headers: { authorization: `Bearer ${a.accountKey}` } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(a.id);
  });
});

describe('GET /api/v1/account/api-key', () => {
  it('has no key before the first reveal and creates one, kw_ and 40 alphanumerics, on the first', async () => {
    const row = await createAccount(t().ctx, { username: `fresh${Date.now()}`, password: 'long enough password' });
    expect(row.apiKeyDigest).toBeNull();
    expect(row.apiKeySealed).toBeNull();
    const key = await revealAccountKey(t().ctx, row.id);
    expect(key).toMatch(KEY_SHAPE);
    const res = await call(t().app, 'GET', '/api/v1/account/api-key', { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { apiKey: key } });
  });

  it('answers the same key on every call', async () => {
    const a = await seedAccount(t().ctx);
    const first = await call(t().app, 'GET', '/api/v1/account/api-key', { key: a.accountKey });
    const second = await call(t().app, 'GET', '/api/v1/account/api-key', { key: a.accountKey });
    expect(first.body.data.apiKey).toBe(a.accountKey);
    expect(second.body.data.apiKey).toBe(a.accountKey);
  });

  it('stores the key only as a SHA-256 digest and an AES-GCM sealed value, never in clear', async () => {
    const a = await seedAccount(t().ctx);
    const row = await t().ctx.db.selectFrom('accounts').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(row.apiKeyDigest).toBe(digest(a.accountKey));
    expect(row.apiKeySealed).not.toBeNull();
    expect(t().ctx.sealer.open(row.apiKeySealed!)).toBe(a.accountKey);
    const serialized = JSON.stringify(row);
    expect(serialized).not.toContain(a.accountKey);
    expect(serialized).not.toContain(a.accountKey.slice(3));
  });
});

describe('POST /api/v1/account/api-key/regenerate', () => {
  it('replaces the key: the old one is refused at once, the new one works', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/account/api-key/regenerate', { key: a.accountKey });
    expect(res.status).toBe(200);
    const fresh = res.body.data.apiKey as string;
    expect(fresh).toMatch(KEY_SHAPE);
    expect(fresh).not.toBe(a.accountKey);

    const old = await call(t().app, 'GET', '/api/v1/account', { key: a.accountKey });
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('UNAUTHORIZED');

    const now = await call(t().app, 'GET', '/api/v1/account', { key: fresh });
    expect(now.status).toBe(200);
    const reveal = await call(t().app, 'GET', '/api/v1/account/api-key', { key: fresh });
    expect(reveal.body.data.apiKey).toBe(fresh);

    const row = await t().ctx.db.selectFrom('accounts').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(row.apiKeyDigest).toBe(digest(fresh));
    expect(JSON.stringify(row)).not.toContain(fresh);
  });
});
