import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';

const t = useTestApp();

describe('POST /api/v1/services: bad input', () => {
  it.each([
    ['too short', 'ab'],
    ['too long', 'a'.repeat(49)],
    ['upper case', 'My-Game'],
    ['underscore', 'my_game'],
    ['space', 'my game'],
    ['empty', ''],
    ['UUID-shaped', '123e4567-e89b-12d3-a456-426614174000'],
  ])('refuses an identifier that is %s', async (_label, identifier) => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name: 'x', identifier } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field: 'identifier' });
  });

  it('refuses a duplicate identifier with 409 CONFLICT, also across accounts', async () => {
    const s = await seedService(t().ctx);
    const same = await call(t().app, 'POST', '/api/v1/services', {
      key: s.account.accountKey,
      body: { name: 'x', identifier: s.identifier },
    });
    expect(same.status).toBe(409);
    expect(same.body.code).toBe('CONFLICT');
    const other = await seedAccount(t().ctx);
    const cross = await call(t().app, 'POST', '/api/v1/services', { key: other.accountKey, body: { name: 'x', identifier: s.identifier } });
    expect(cross.status).toBe(409);
  });

  it.each([
    ['a missing name', { identifier: 'abc-def' }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a name over 100 characters', { name: 'n'.repeat(101) }, 'name'],
    ['a numeric name', { name: 7 }, 'name'],
    ['a numeric identifier', { name: 'x', identifier: 123 }, 'identifier'],
    ['an unknown field', { name: 'x', owner: 'me' }, 'owner'],
  ])('refuses %s', async (_label, body, field) => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
    const rows = await t().ctx.db.selectFrom('services').select('id').where('accountId', '=', a.id).execute();
    expect(rows).toHaveLength(0);
  });

  it('refuses an array body', async () => {
    const a = await seedAccount(t().ctx);
    const res = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: [] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('PATCH /api/v1/services/:id: bad input', () => {
  it.each([
    ['an empty name', { name: '' }, 'name'],
    ['a missing name', {}, 'name'],
    ['an identifier change', { name: 'x', identifier: 'new-one' }, 'identifier'],
    ['a boolean name', { name: true }, 'name'],
  ])('refuses %s and leaves the service unchanged', async (_label, body, field) => {
    const s = await seedService(t().ctx);
    const before = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
    const res = await call(t().app, 'PATCH', `/api/v1/services/${s.id}`, { key: s.account.accountKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
    const after = await t().ctx.db.selectFrom('services').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });
});

describe('unknown services', () => {
  it.each([
    ['GET', ''],
    ['PATCH', ''],
    ['DELETE', ''],
    ['GET', '/api-key'],
    ['POST', '/api-key/regenerate'],
    ['GET', '/permissions'],
    ['PATCH', '/permissions'],
    ['GET', '/ip-allowlist'],
    ['PUT', '/ip-allowlist'],
  ] as const)('%s /services/:id%s answers 404 for a service that does not exist', async (method, suffix) => {
    const a = await seedAccount(t().ctx);
    const body = method === 'PATCH' ? (suffix ? { allowVss: false } : { name: 'x' }) : method === 'PUT' ? { entries: [] } : undefined;
    const res = await call(t().app, method, `/api/v1/services/no-such-service${suffix}`, { key: a.accountKey, body });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});
