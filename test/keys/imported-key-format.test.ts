import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

// Contract §7 (opening): keys may be imported, so every route that takes a key accepts 8–64 of [A-Za-z0-9_-].
const t = useTestApp();
const base = {
  status: 'active',
  last_reset: 0,
  key_days: -1,
  ban_reason: '',
  ban_expire: -1,
  identifier_type: 'hwid',
  discord_id: '',
  note: '',
  banned: 0,
  total_executions: 0,
  total_resets: 0,
};

describe('an imported key with _ and -', () => {
  it('is looked up, edited, validated, reset, extended, bound and deleted like a generated one', async () => {
    const s = await seedService(t().ctx);
    const bound = `Imp_key-${Date.now().toString(36)}`;
    const unbound = `x-${'a'.repeat(60)}_z`;
    const imported = await call(t().app, 'POST', '/api/v1/keys/api/keys/import', {
      key: s.serviceKey,
      body: {
        format: 'luarmor',
        data: [
          { ...base, user_key: bound, identifier: 'PC-1', auth_expire: 1_900_000_000 },
          { ...base, user_key: unbound, identifier: '', auth_expire: -1 },
        ],
      },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) =>
      call(t().app, method, `/api/v1${path}`, { key: s.serviceKey, body });

    expect((await api('GET', `/keys/api/key?key=${bound}`)).body.data.keys).toMatchObject([{ key: bound, hwid: 'PC-1' }]);
    expect((await api('GET', `/keys/api/generated-key?key=${unbound}`)).body.data.keys).toMatchObject([{ key: unbound }]);
    expect((await api('PUT', '/keys/api/key', { key: bound, note: 'edited' })).status).toBe(200);
    expect((await api('GET', `/keys/api/key/binding?key=${bound}&type=active`)).body.data).toMatchObject({ bound: true, hwid: 'PC-1' });
    const verdict = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key: bound, hwid: 'PC-1' })}`,
    );
    expect(verdict.body.data).toMatchObject({ valid: true, code: 'KEY_VALID' });
    expect((await api('POST', '/keys/reset-hwid', { key: bound })).body.data).toMatchObject({ key: bound, hwid: null });
    expect((await api('POST', '/keys/api/key/extend-expiration', { key: bound, days: 1 })).status).toBe(200);
    expect((await api('DELETE', `/keys/api/generated-key?key=${unbound}`)).status).toBe(200);
    expect(await t().ctx.db.selectFrom('generatedKeys').select('key').where('key', '=', unbound).execute()).toEqual([]);
  });

  it('still refuses a key with other characters or over 64, naming the field', async () => {
    const s = await seedService(t().ctx);
    for (const key of ['has space1', 'dot.ted.key', 'k'.repeat(65), 'ключключ']) {
      const res = await call(t().app, 'GET', `/api/v1/keys/api/key?key=${encodeURIComponent(key)}`, { key: s.serviceKey });
      expect(res.status, key).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'key' });
    }
  });
});
