import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';

const t = useTestApp();
const URL = '/api/v1/keys/api/variables';

const put = (s: SeededService, body: unknown, key = s.serviceKey) => call(t().app, 'PUT', URL, { key, body });
const clientGet = (query: Record<string, string>) => call(t().app, 'GET', `/api/v1/keys/variables?${new URLSearchParams(query)}`);

describe('GET|PUT /keys/api/variables', () => {
  it('stores the whole set, reads it back and writes the audit entry with the names only', async () => {
    const s = await seedService(t().ctx);
    expect((await call(t().app, 'GET', URL, { key: s.serviceKey })).body.data).toEqual({ variables: {} });
    const variables = { motd: 'Update 2 is live', discord_invite: 'https://discord.gg/abc', _v2: '' };
    const res = await put(s, { variables });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ variables });
    expect((await call(t().app, 'GET', URL, { key: s.serviceKey })).body.data).toEqual({ variables });
    // A PUT replaces: a name left out is gone. (A second later, so the audit log's newest entry is this one.)
    t().clock.advance(1000);
    expect((await put(s, { variables: { motd: 'new' } })).body.data).toEqual({ variables: { motd: 'new' } });
    expect((await call(t().app, 'GET', URL, { key: s.serviceKey })).body.data).toEqual({ variables: { motd: 'new' } });
    const audit = await call(t().app, 'GET', '/api/v1/keys/api/audit?action=variables.update', { key: s.serviceKey });
    expect(audit.body.data.items[0]).toMatchObject({ action: 'variables.update', details: { names: ['motd'] } });
    expect(JSON.stringify(audit.body.data.items)).not.toContain('discord.gg');
  });

  it('accepts exactly 100 variables of 4096 characters and a 64-character name', async () => {
    const s = await seedService(t().ctx);
    const variables: Record<string, string> = {};
    for (let i = 0; i < 99; i++) variables[`v${i}`] = 'é'.repeat(4096);
    variables[`a${'b'.repeat(63)}`] = 'x';
    const res = await put(s, { variables });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.variables)).toHaveLength(100);
  });

  it('refuses a bad name, naming the variable in plain words, and keeps the old set', async () => {
    const s = await seedService(t().ctx);
    await put(s, { variables: { keep: 'me' } });
    for (const name of ['1st', 'has-dash', 'has space', '', 'a'.repeat(65), 'ünicode']) {
      const res = await put(s, { variables: { ok: 'x', [name]: 'value' } });
      expect(res.status, name).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: `variables.${name.slice(0, 64)}` });
      expect(res.body.error).toContain(`The variable name ${JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name)}`);
      expect(res.body.error).toContain('starts with a letter or _');
    }
    expect((await call(t().app, 'GET', URL, { key: s.serviceKey })).body.data).toEqual({ variables: { keep: 'me' } });
  });

  it('refuses more than 100 variables, a value over 4096 characters, a value that is not text, and a NUL', async () => {
    const s = await seedService(t().ctx);
    const many: Record<string, string> = {};
    for (let i = 0; i < 101; i++) many[`v${i}`] = 'x';
    const tooMany = await put(s, { variables: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ field: 'variables', error: 'A service may have at most 100 variables; this list has 101' });

    const long = await put(s, { variables: { motd: 'x'.repeat(4097) } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ field: 'variables.motd', error: 'The variable motd is longer than 4096 characters' });

    const number = await put(s, { variables: { level: 3 } });
    expect(number.status).toBe(400);
    expect(number.body).toMatchObject({ field: 'variables.level', error: 'The variable level must be text (a string)' });

    const nul = await put(s, { variables: { bad: 'a\u0000b' } });
    expect(nul.status).toBe(400);
    expect(nul.body.field).toBe('variables.bad');

    for (const body of [{ variables: [] }, { variables: 'x' }, {}, { variables: {}, extra: 1 }]) {
      const res = await put(s, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('needs allowManageKeys to change them, but not to read them', async () => {
    const s = await seedService(t().ctx);
    await t().ctx.db.updateTable('services').set({ allowManageKeys: 0 }).where('id', '=', s.id).execute();
    const res = await put(s, { variables: { a: 'b' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('PERMISSION_DENIED');
    expect((await call(t().app, 'GET', URL, { key: s.serviceKey })).status).toBe(200);
    // The owner's account key is not held to the flags.
    const owner = await put(s, { variables: { a: 'b' } }, s.account.accountKey);
    expect(owner.status).toBe(400); // no X-Service-Id
    const withService = await call(t().app, 'PUT', URL, {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.id },
      body: { variables: { a: 'b' } },
    });
    expect(withService.status).toBe(200);
  });

  it("keeps services apart: another service's key never sees or changes them", async () => {
    const a = await seedService(t().ctx);
    const b = await seedService(t().ctx);
    await put(a, { variables: { secret_link: 'only-a' } });
    expect((await call(t().app, 'GET', URL, { key: b.serviceKey })).body.data).toEqual({ variables: {} });
    const cross = await call(t().app, 'GET', URL, { key: b.account.accountKey, headers: { 'x-service-id': a.id } });
    expect(cross.status).toBe(404);
  });
});

describe('GET /keys/variables (client)', () => {
  async function setup() {
    const s = await seedService(t().ctx);
    await put(s, { variables: { motd: 'hello buyers' } });
    return s;
  }

  it('gives the variables with a valid verdict, binding the HWID like /keys/validate', async () => {
    const s = await setup();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await clientGet({ service: s.identifier, key: key!, hwid: 'pc-1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ valid: true, code: 'KEY_VALID', variables: { motd: 'hello buyers' } });
    const row = await t().ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', key!).executeTakeFirstOrThrow();
    expect(row.hwid).toBe('pc-1');
    // Named by id as well as identifier.
    expect((await clientGet({ service: s.id, key: key!, hwid: 'pc-1' })).body.data.valid).toBe(true);
  });

  it('answers {} for a key locked to another HWID, an expired key, a paused key, a wrong key and no HWID', async () => {
    const s = await setup();
    const [locked, paused] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', count: 2 });
    const [expiring] = await generateKeys(t().app, s.serviceKey, { expirationType: 'byDays', days: 1 });
    expect((await clientGet({ service: s.id, key: locked!, hwid: 'owner-pc' })).body.data.valid).toBe(true);
    expect((await clientGet({ service: s.id, key: paused!, hwid: 'p' })).body.data.valid).toBe(true);
    await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key: paused, status: 'paused' } });
    t().clock.advance(2 * 86_400_000);
    const cases: Array<[Record<string, string>, string]> = [
      [{ key: locked!, hwid: 'thief-pc' }, 'KEY_HWID_LOCKED'],
      [{ key: expiring!, hwid: 'x' }, 'KEY_EXPIRED'],
      [{ key: paused!, hwid: 'p' }, 'KEY_PAUSED'],
      [{ key: 'not-a-key-at-all', hwid: 'x' }, 'KEY_INCORRECT'],
      [{ key: locked! }, 'HWID_REQUIRED'],
    ];
    for (const [query, code] of cases) {
      const res = await clientGet({ service: s.id, ...query });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ valid: false, code, variables: {} });
    }
  });

  it('answers 404 for an unknown service and 400 for a malformed request', async () => {
    expect((await clientGet({ service: 'no-such-service', key: 'k', hwid: 'h' })).status).toBe(404);
    const bad = await clientGet({ service: 'x', key: 'k', hwid: 'tab\there' });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('hwid');
  });

  it('is also reachable by script id (what api.variables() calls)', async () => {
    const s = await setup();
    const script = await uploadScript(t().app, s, { name: 'vars', code: 'print(1)' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await call(t().app, 'GET', `/api/v1/lua/variables/${script.id}?key=${key}&hwid=pc`);
    expect(res.body.data).toEqual({ valid: true, code: 'KEY_VALID', variables: { motd: 'hello buyers' } });
    expect((await call(t().app, 'GET', `/api/v1/lua/variables/${script.id}?key=wrong&hwid=pc`)).body.data.variables).toEqual({});
    expect((await call(t().app, 'GET', `/api/v1/lua/variables/00000000-0000-4000-8000-000000000000?key=${key}&hwid=pc`)).status).toBe(404);
  });
});
