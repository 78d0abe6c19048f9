import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { fetchScript, SCRIPTS, uploadScript } from './script-helpers.ts';

const t = useTestApp();
const loadstringOf = (id: string) => `loadstring(game:HttpGet("http://keyward.test/api/v1/vss/loader/${id}"))()`;

describe('POST /api/v1/vss/api/scripts', () => {
  it('stores a script and answers the Script record with its loadstring', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', SCRIPTS, { key: s.serviceKey, body: { name: 'main.lua', code: 'print("hé")' } });
    expect(res.status).toBe(201);
    const script = res.body.data;
    expect(script).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'main.lua',
      obfuscationType: 'NONE',
      visible: true,
      ffa: false,
      silent: false,
      heartbeat: false,
      executors: null,
      size: Buffer.byteLength('print("hé")'),
      status: 'ready',
      createdAt: new Date(t().clock.now).toISOString(),
      updatedAt: new Date(t().clock.now).toISOString(),
      loadstring: loadstringOf(script.id),
    });
    const row = await t().ctx.db.selectFrom('scripts').selectAll().where('id', '=', script.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ serviceId: s.id, name: 'main.lua', status: 'ready', visible: 1, obfuscationType: 'NONE' });
    expect(row.outputBlob).toBe(row.sourceBlob);
  });

  it('accepts an account key with X-Service-Id and stores visible: false', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'POST', SCRIPTS, {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.identifier },
      body: { name: 'hidden', code: 'return 1', visible: false, obfuscationType: 'NONE' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'hidden', visible: false, obfuscationType: 'NONE' });
  });

  it('decodes every JSON escape of the code exactly as JSON.parse does', async () => {
    const s = await seedService(t().ctx);
    const code = 'local s = "tab\\t quote\\" slash/ nl\n" -- 日本語 😀 \u0001 \u2028 \\u escaped';
    const script = await uploadScript(t().app, s, { name: 'escapes', code });
    expect(script.size).toBe(Buffer.byteLength(code));
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await fetchScript(t().app, script.id, { key: key!, hwid: 'pc-1' });
    expect(res.body).toBe(code);
  });
});

describe('GET /api/v1/vss/api/scripts', () => {
  it('pages the scripts newest first and filters by a name substring', async () => {
    const s = await seedService(t().ctx);
    for (const name of ['alpha', 'beta', 'alphabet']) {
      await uploadScript(t().app, s, { name, code: `print("${name}")` });
      t().clock.advance(1000);
    }
    const page1 = await call(t().app, 'GET', `${SCRIPTS}?limit=2`, { key: s.serviceKey });
    expect(page1.status).toBe(200);
    expect(page1.body.data).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(page1.body.data.items.map((i: { name: string }) => i.name)).toEqual(['alphabet', 'beta']);
    const page2 = await call(t().app, 'GET', `${SCRIPTS}?limit=2&page=2`, { key: s.serviceKey });
    expect(page2.body.data.items.map((i: { name: string }) => i.name)).toEqual(['alpha']);
    const search = await call(t().app, 'GET', `${SCRIPTS}?search=ALPHA`, { key: s.serviceKey });
    expect(search.body.data.items.map((i: { name: string }) => i.name)).toEqual(['alphabet', 'alpha']);
    expect(search.body.data.total).toBe(2);
    expect(search.body.data.items[0]).not.toHaveProperty('code');
  });
});

describe('GET /api/v1/vss/api/scripts/:idOrSlug/loadstring', () => {
  it('answers the loadstring by id and by name', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'by-name', code: 'x()' });
    for (const ref of [script.id, script.id.toUpperCase(), 'by-name']) {
      const res = await call(t().app, 'GET', `${SCRIPTS}/${ref}/loadstring`, { key: s.serviceKey });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ loadstring: loadstringOf(script.id) });
    }
  });
});

describe('PUT /api/v1/vss/api/scripts/:idOrSlug', () => {
  it('changes only the fields sent', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'old', code: 'print(1)' });
    const createdAt = new Date(t().clock.now).toISOString();
    t().clock.advance(5000);
    const res = await call(t().app, 'PUT', `${SCRIPTS}/old`, { key: s.serviceKey, body: { name: 'new', visible: false } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: script.id,
      name: 'new',
      visible: false,
      size: 8,
      status: 'ready',
      updatedAt: new Date(t().clock.now).toISOString(),
    });
    expect(res.body.data.createdAt).toBe(createdAt);
    const gone = await call(t().app, 'GET', `${SCRIPTS}/old/loadstring`, { key: s.serviceKey });
    expect(gone.status).toBe(404);
  });

  it('replaces the code: the next fetch serves the new code and the old chunks are kept only as version 1', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'swap', code: 'print("v1")' });
    const before = await t().ctx.db.selectFrom('scripts').select('sourceBlob').where('id', '=', script.id).executeTakeFirstOrThrow();
    const res = await call(t().app, 'PUT', `${SCRIPTS}/${script.id}`, { key: s.serviceKey, body: { code: 'print("version 2")' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'swap', size: 18, status: 'ready' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    expect((await fetchScript(t().app, script.id, { key: key!, hwid: 'h' })).body).toBe('print("version 2")');
    const old = await t().ctx.db.selectFrom('scriptChunks').select('seq').where('blobId', '=', before.sourceBlob).execute();
    // Contract §13.2 keeps the last 20 versions: the old code stays as version 1 (pruning: test/scripts/versions.test.ts).
    expect(old).toHaveLength(1);
    const kept = await t()
      .ctx.db.selectFrom('scriptVersions')
      .select(['version', 'blobId'])
      .where('scriptId', '=', script.id)
      .orderBy('version')
      .execute();
    expect(kept).toEqual([
      { version: 1, blobId: before.sourceBlob },
      { version: 2, blobId: expect.any(String) },
    ]);
  });
});

describe('DELETE /api/v1/vss/api/scripts/:idOrSlug', () => {
  it('deletes the script and its stored code', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'doomed', code: 'print(0)' });
    const res = await call(t().app, 'DELETE', `${SCRIPTS}/doomed`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: 1 });
    expect(await t().ctx.db.selectFrom('scripts').select('id').where('id', '=', script.id).execute()).toHaveLength(0);
    expect(await t().ctx.db.selectFrom('scriptChunks').select('seq').where('blobId', '=', script.id).execute()).toHaveLength(0);
    const again = await call(t().app, 'DELETE', `${SCRIPTS}/${script.id}`, { key: s.serviceKey });
    expect(again.status).toBe(404);
  });
});

describe('GET /api/v1/keys/api/scripts and by-chat loadstrings', () => {
  it('lists the visible scripts with their loadstrings only', async () => {
    const s = await seedService(t().ctx);
    const shown = await uploadScript(t().app, s, { name: 'shown', code: 'a()' });
    await uploadScript(t().app, s, { name: 'secret', code: 'b()', visible: false });
    const res = await call(t().app, 'GET', '/api/v1/keys/api/scripts', { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ scripts: [{ id: shown.id, name: 'shown', loadstring: loadstringOf(shown.id) }] });
  });

  it('adds the visible loadstrings to by-chat when asked and a key is valid', async () => {
    const s = await seedService(t().ctx);
    const shown = await uploadScript(t().app, s, { name: 'chat-script', code: 'a()' });
    await uploadScript(t().app, s, { name: 'chat-hidden', code: 'b()', visible: false });
    const chatId = '123456789012345678';
    await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime', chatId });
    const res = await call(t().app, 'GET', `/api/v1/keys/api/key/by-chat?chatId=${chatId}&includeLoadstring=1`, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data.loadstrings).toEqual([{ scriptId: shown.id, name: 'chat-script', loadstring: loadstringOf(shown.id) }]);
    const without = await call(t().app, 'GET', `/api/v1/keys/api/key/by-chat?chatId=${chatId}`, { key: s.serviceKey });
    expect(without.body.data).not.toHaveProperty('loadstrings');
  });
});
