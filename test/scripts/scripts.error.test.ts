import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { SCRIPTS, uploadScript } from './script-helpers.ts';

const t = useTestApp();
const LIMIT = 41_943_040;

async function post(body: unknown, key?: string) {
  const s = await seedService(t().ctx);
  return call(t().app, 'POST', SCRIPTS, { key: key ?? s.serviceKey, body });
}

describe('POST /api/v1/vss/api/scripts input', () => {
  it.each([
    ['a missing name', { code: 'x' }, 'name'],
    ['a missing code', { name: 'n' }, 'code'],
    ['an empty name', { name: '', code: 'x' }, 'name'],
    ['a name with a space', { name: 'my script', code: 'x' }, 'name'],
    ['a 65-character name', { name: 'a'.repeat(65), code: 'x' }, 'name'],
    ['a UUID-shaped name', { name: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', code: 'x' }, 'name'],
    ['a numeric code', { name: 'n', code: 42 }, 'code'],
    ['an empty code', { name: 'n', code: '' }, 'code'],
    ['a string "false" for visible', { name: 'n', code: 'x', visible: 'false' }, 'visible'],
    ['an unknown obfuscationType', { name: 'n', code: 'x', obfuscationType: 'MOONSEC' }, 'obfuscationType'],
    ['an unknown field', { name: 'n', code: 'x', colour: 'red' }, 'colour'],
  ])('refuses %s with a 400 naming the field', async (_label, body, field) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
    expect(await t().ctx.db.selectFrom('scripts').select('id').where('name', '=', 'n').execute()).toHaveLength(0);
  });

  it.each([
    ['not JSON', '{"name": "n", "code": "x"'],
    ['a trailing comma', '{"name": "n", "code": "x",}'],
    ['a raw newline inside the code string', '{"name": "n", "code": "a\nb"}'],
    ['a bad escape in the code', '{"name": "n", "code": "\\q"}'],
    ['garbage after the object', '{"name": "n", "code": "x"} x'],
  ])('answers 400 (never 500) for a body that is %s', async (_label, raw) => {
    const res = await post(raw);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'body' });
  });

  it('answers 400 for a JSON array body', async () => {
    const res = await post('[]');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a duplicate name in the same service with 409 and keeps one script', async () => {
    const s = await seedService(t().ctx);
    await uploadScript(t().app, s, { name: 'dup', code: 'x' });
    const res = await call(t().app, 'POST', SCRIPTS, { key: s.serviceKey, body: { name: 'dup', code: 'y' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect(await t().ctx.db.selectFrom('scripts').select('id').where('serviceId', '=', s.id).execute()).toHaveLength(1);
  });

  it('allows the same name in two services', async () => {
    const a = await seedService(t().ctx);
    const b = await seedService(t().ctx);
    await uploadScript(t().app, a, { name: 'same', code: 'x' });
    await uploadScript(t().app, b, { name: 'same', code: 'x' });
  });

  it('refuses an obfuscation type with no provider configured with 422', async () => {
    const res = await post({ name: 'obf', code: 'x', obfuscationType: 'IB1' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'OBFUSCATOR_UNAVAILABLE' });
    expect(await t().ctx.db.selectFrom('scripts').select('id').where('name', '=', 'obf').execute()).toHaveLength(0);
  });
});

describe('script size limit', () => {
  it('accepts code of exactly 41,943,040 bytes and refuses one byte more with 413', async () => {
    const s = await seedService(t().ctx);
    // Multi-byte characters straddle the 1 MiB chunk boundaries, and the size counts UTF-8 bytes.
    const exact = 'é'.repeat(LIMIT / 2);
    const ok = await call(t().app, 'POST', SCRIPTS, { key: s.serviceKey, body: { name: 'big', code: exact } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.size).toBe(LIMIT);
    const chunks = await t()
      .ctx.db.selectFrom('scriptChunks')
      .select(['seq', 'data'])
      .where(
        'blobId',
        '=',
        (await t().ctx.db.selectFrom('scripts').select('sourceBlob').where('id', '=', ok.body.data.id).executeTakeFirstOrThrow())
          .sourceBlob,
      )
      .orderBy('seq')
      .execute();
    expect(chunks.map((c) => c.data).join('')).toBe(exact);

    const over = await call(t().app, 'POST', SCRIPTS, { key: s.serviceKey, body: { name: 'bigger', code: exact + 'x' } });
    expect(over.status).toBe(413);
    expect(over.body.code).toBe('PAYLOAD_TOO_LARGE');
    const put = await call(t().app, 'PUT', `${SCRIPTS}/big`, { key: s.serviceKey, body: { code: 'a'.repeat(LIMIT + 1) } });
    expect(put.status).toBe(413);
    expect(await t().ctx.db.selectFrom('scripts').select('id').where('name', '=', 'bigger').execute()).toHaveLength(0);
    // Three 40 MB bodies through the real parser and the database: seconds alone, far more on a busy 2-core runner.
  }, 120_000);

  it('counts the code after JSON escapes: a heavily escaped 40 MB body is accepted by its decoded size', async () => {
    const s = await seedService(t().ctx);
    const code = '\n'.repeat(1024 * 1024);
    const res = await call(t().app, 'POST', SCRIPTS, { key: s.serviceKey, body: { name: 'newlines', code } });
    expect(res.status).toBe(201);
    expect(res.body.data.size).toBe(1024 * 1024);
  });

  it('keeps the 1 MB limit on the other fields and on every other route', async () => {
    const s = await seedService(t().ctx);
    const name = await call(t().app, 'POST', SCRIPTS, {
      key: s.serviceKey,
      body: { name: 'n', code: 'x', note: 'a'.repeat(1024 * 1024 + 10) },
    });
    expect(name.status).toBe(413);
    const del = await call(t().app, 'DELETE', `${SCRIPTS}/whatever`, { key: s.serviceKey, body: { pad: 'a'.repeat(1024 * 1024 + 10) } });
    expect(del.status).toBe(413);
    expect(del.body.code).toBe('PAYLOAD_TOO_LARGE');
    const other = await call(t().app, 'POST', '/api/v1/keys/api/keyless', {
      key: s.serviceKey,
      body: { hwid: 'a'.repeat(1024 * 1024 + 10) },
    });
    expect(other.status).toBe(413);
  });
});

describe('list, loadstring, update and delete input', () => {
  it.each([['limit=101'], ['limit=1.5'], ['page=0'], ['limit=abc'], ['sort=name']])('refuses ?%s with 400', async (query) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', `${SCRIPTS}?${query}`, { key: s.serviceKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('answers 404 for an unknown script on every route', async () => {
    const s = await seedService(t().ctx);
    for (const ref of ['nope', '3f2504e0-4f89-11d3-9a0c-0305e82c3301']) {
      expect((await call(t().app, 'GET', `${SCRIPTS}/${ref}/loadstring`, { key: s.serviceKey })).status).toBe(404);
      expect((await call(t().app, 'PUT', `${SCRIPTS}/${ref}`, { key: s.serviceKey, body: { visible: true } })).status).toBe(404);
      expect((await call(t().app, 'DELETE', `${SCRIPTS}/${ref}`, { key: s.serviceKey })).status).toBe(404);
    }
  });

  it('refuses an empty update, an unknown field and a rename onto another script', async () => {
    const s = await seedService(t().ctx);
    await uploadScript(t().app, s, { name: 'one', code: 'x' });
    await uploadScript(t().app, s, { name: 'two', code: 'y' });
    const empty = await call(t().app, 'PUT', `${SCRIPTS}/one`, { key: s.serviceKey, body: {} });
    expect(empty.status).toBe(400);
    const unknown = await call(t().app, 'PUT', `${SCRIPTS}/one`, { key: s.serviceKey, body: { nmae: 'x' } });
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'nmae' });
    const wrongType = await call(t().app, 'PUT', `${SCRIPTS}/one`, { key: s.serviceKey, body: { visible: 1 } });
    expect(wrongType.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'visible' });
    const clash = await call(t().app, 'PUT', `${SCRIPTS}/one`, { key: s.serviceKey, body: { name: 'two' } });
    expect(clash.status).toBe(409);
    const unavailable = await call(t().app, 'PUT', `${SCRIPTS}/one`, { key: s.serviceKey, body: { obfuscationType: 'LURAPH' } });
    expect(unavailable.status).toBe(422);
    const row = await t()
      .ctx.db.selectFrom('scripts')
      .selectAll()
      .where('serviceId', '=', s.id)
      .where('name', '=', 'one')
      .executeTakeFirstOrThrow();
    expect(row.obfuscationType).toBe('NONE');
  });
});
