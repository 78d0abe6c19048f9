import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { anotherInstance, useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';
import { SCRIPTS, uploadScript } from './script-helpers.ts';

const t = useTestApp();
let second: App;
beforeAll(async () => {
  second = await anotherInstance(t());
});
afterAll(async () => {
  await second?.close();
});

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function fetchOn(app: App, scriptId: string, key: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${scriptId}?key=${encodeURIComponent(key)}&hwid=pc-1`, headers });
}

/** Polls until the check passes: the other instance learns of a change asynchronously (NOTIFY on PostgreSQL). */
async function eventually(check: () => Promise<boolean>, deadlineMs = 2000) {
  const until = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not seen within ${deadlineMs} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const versionsOf = async (s: SeededService, ref: string) => call(t().app, 'GET', `${SCRIPTS}/${ref}/versions`, { key: s.serviceKey });
const restore = (s: SeededService, ref: string, version: number | string, key = s.serviceKey) =>
  call(t().app, 'POST', `${SCRIPTS}/${ref}/versions/${version}/restore`, { key });
const putCode = (s: SeededService, ref: string, code: string) =>
  call(t().app, 'PUT', `${SCRIPTS}/${ref}`, { key: s.serviceKey, body: { code } });

describe('script versions', () => {
  it('keeps a version for the upload and for every change of code, with size, SHA-256 and which is current', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'v', code: 'print("one")' });
    t().clock.advance(1000);
    expect((await putCode(s, 'v', 'print("two, é")')).status).toBe(200);
    t().clock.advance(1000);
    // A rename or a visibility change is not a new version.
    expect((await call(t().app, 'PUT', `${SCRIPTS}/v`, { key: s.serviceKey, body: { visible: false } })).status).toBe(200);
    const res = await versionsOf(s, script.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      items: [
        {
          version: 2,
          sha256: sha('print("two, é")'),
          size: Buffer.byteLength('print("two, é")'),
          createdAt: new Date(t().clock.now - 1000).toISOString(),
          current: true,
        },
        {
          version: 1,
          sha256: sha('print("one")'),
          size: 12,
          createdAt: new Date(t().clock.now - 2000).toISOString(),
          current: false,
        },
      ],
    });
  });

  it('keeps only the last 20 versions and deletes the code of older ones in the same change', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'many', code: 'print(1)' });
    const first = await t()
      .ctx.db.selectFrom('scriptVersions')
      .select('blobId')
      .where('scriptId', '=', script.id)
      .executeTakeFirstOrThrow();
    for (let n = 2; n <= 22; n++) expect((await putCode(s, 'many', `print(${n})`)).status).toBe(200);
    const items = (await versionsOf(s, 'many')).body.data.items as Array<{ version: number; current: boolean }>;
    expect(items.map((v) => v.version)).toEqual(Array.from({ length: 20 }, (_, i) => 22 - i));
    expect(items.filter((v) => v.current).map((v) => v.version)).toEqual([22]);
    const orphan = await t().ctx.db.selectFrom('scriptChunks').select('seq').where('blobId', '=', first.blobId).execute();
    expect(orphan).toEqual([]);
    // Every kept version's code is still there to restore.
    const blobs = await t().ctx.db.selectFrom('scriptVersions').select('blobId').where('scriptId', '=', script.id).execute();
    for (const { blobId } of blobs) {
      expect(await t().ctx.db.selectFrom('scriptChunks').select('seq').where('blobId', '=', blobId).execute()).toHaveLength(1);
    }
    expect((await restore(s, 'many', 2)).status).toBe(404);
  });

  it('restores a version at once on every instance: body, ETag, X-Script-Version and X-Script-SHA256 follow', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'roll', code: 'print("good build")' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const v1 = await fetchOn(second, script.id, key!);
    expect(v1.headers['x-script-version']).toBe('1');
    expect(v1.headers['x-script-sha256']).toBe(sha('print("good build")'));

    expect((await putCode(s, 'roll', 'print("broken build")')).status).toBe(200);
    await eventually(async () => (await fetchOn(second, script.id, key!)).body === 'print("broken build")');
    const v2 = await fetchOn(second, script.id, key!);
    expect(v2.headers['x-script-version']).toBe('2');
    expect(v2.headers.etag).not.toBe(v1.headers.etag);

    const res = await restore(s, 'roll', 1);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: script.id, name: 'roll', status: 'ready', size: Buffer.byteLength('print("good build")') });
    // Both instances serve version 1 again; a client holding version 2's ETag gets the code, not a 304.
    for (const app of [t().app, second]) {
      await eventually(async () => (await fetchOn(app, script.id, key!)).body === 'print("good build")');
      const after = await fetchOn(app, script.id, key!, { 'if-none-match': String(v2.headers.etag) });
      expect(after.statusCode).toBe(200);
      expect(after.headers['x-script-version']).toBe('1');
      expect(after.headers['x-script-sha256']).toBe(sha('print("good build")'));
      expect(after.headers.etag).toBe(v1.headers.etag);
    }
    const items = (await versionsOf(s, script.id)).body.data.items as Array<{ version: number; current: boolean }>;
    expect(items).toMatchObject([
      { version: 2, current: false },
      { version: 1, current: true },
    ]);
    // The audit log names the restore; the code never goes in it.
    const audit = await call(t().app, 'GET', '/api/v1/keys/api/audit?action=script.restore', { key: s.serviceKey });
    expect(audit.body.data.items).toHaveLength(1);
    expect(audit.body.data.items[0]).toMatchObject({
      action: 'script.restore',
      target: script.id,
      details: { version: 1, previousVersion: 2 },
    });
    expect(JSON.stringify(audit.body.data.items[0])).not.toContain('good build');

    // A new upload after a restore is the next number, and current.
    expect((await putCode(s, 'roll', 'print("fixed build")')).status).toBe(200);
    const latest = (await versionsOf(s, script.id)).body.data.items as Array<{ version: number; current: boolean }>;
    expect(latest[0]).toMatchObject({ version: 3, current: true });
  });

  it('answers 404 in plain words for a version that does not exist, and changes nothing', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'none', code: 'print("only")' });
    for (const version of [0, 2, 999]) {
      const res = await restore(s, script.id, version);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
      expect(res.body.error).toMatch(/^Version \d+ of this script/);
    }
    const bad = await restore(s, script.id, 'latest');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('version number');
    const row = await t().ctx.db.selectFrom('scripts').select(['currentVersion']).where('id', '=', script.id).executeTakeFirstOrThrow();
    expect(row.currentVersion).toBe(1);
  });

  it("treats another account's script as not found, for listing and restoring", async () => {
    const owner = await seedService(t().ctx);
    const stranger = await seedService(t().ctx);
    const script = await uploadScript(t().app, owner, { name: 'mine', code: 'print("mine")' });
    await putCode(owner, 'mine', 'print("mine 2")');
    expect((await versionsOf(stranger, script.id)).status).toBe(404);
    expect((await versionsOf(stranger, 'mine')).status).toBe(404);
    const res = await restore(stranger, script.id, 1);
    expect(res.status).toBe(404);
    const viaAccountKey = await call(t().app, 'POST', `${SCRIPTS}/${script.id}/versions/1/restore`, {
      key: stranger.account.accountKey,
      headers: { 'x-service-id': stranger.id },
    });
    expect(viaAccountKey.status).toBe(404);
    const row = await t().ctx.db.selectFrom('scripts').select(['currentVersion']).where('id', '=', script.id).executeTakeFirstOrThrow();
    expect(row.currentVersion).toBe(2);
  });

  it('needs allowVss on the service key for listing and restoring', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'gated', code: 'print(1)' });
    await t().ctx.db.updateTable('services').set({ allowVss: 0 }).where('id', '=', s.id).execute();
    try {
      expect((await versionsOf(s, script.id)).body.code).toBe('PERMISSION_DENIED');
      expect((await restore(s, script.id, 1)).body.code).toBe('PERMISSION_DENIED');
    } finally {
      await t().ctx.db.updateTable('services').set({ allowVss: 1 }).where('id', '=', s.id).execute();
    }
  });

  it('deleting a script deletes the code of all its versions', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'gone', code: 'print(1)' });
    await putCode(s, 'gone', 'print(2)');
    const blobs = (await t().ctx.db.selectFrom('scriptVersions').select('blobId').where('scriptId', '=', script.id).execute()).map(
      (v) => v.blobId,
    );
    expect(blobs).toHaveLength(2);
    expect((await call(t().app, 'DELETE', `${SCRIPTS}/gone`, { key: s.serviceKey })).status).toBe(200);
    expect(await t().ctx.db.selectFrom('scriptChunks').select('seq').where('blobId', 'in', blobs).execute()).toEqual([]);
    expect(await t().ctx.db.selectFrom('scriptVersions').select('version').where('scriptId', '=', script.id).execute()).toEqual([]);
  });

  it('two code changes racing on one script get distinct version numbers', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'race', code: 'print(0)' });
    const results = await Promise.all([1, 2, 3, 4].map((n) => putCode(s, 'race', `print(${n})`)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const items = (await versionsOf(s, script.id)).body.data.items as Array<{ version: number; current: boolean }>;
    expect(items.map((v) => v.version)).toEqual([5, 4, 3, 2, 1]);
    expect(items.filter((v) => v.current)).toHaveLength(1);
  });
});

describe('kill switch', () => {
  it('a disabled script raises its message, binds nothing and counts no execution; switched on it runs again', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'switch', code: 'print("running")' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const off = await call(t().app, 'PUT', `${SCRIPTS}/switch`, {
      key: s.serviceKey,
      body: { enabled: false, disabledMessage: 'Down for the update, back at 18:00' },
    });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ enabled: false, disabledMessage: 'Down for the update, back at 18:00' });

    await t().ctx.executions.flush(t().ctx.db);
    const before = await t().ctx.db.selectFrom('services').select('executions').where('id', '=', s.id).executeTakeFirstOrThrow();
    for (const app of [t().app, second]) {
      await eventually(async () => (await fetchOn(app, script.id, key!)).body.includes('Down for the update'));
      const res = await fetchOn(app, script.id, key!);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('error("Keyward: SCRIPT_DISABLED: Down for the update, back at 18:00", 0)\n');
      expect(res.body).not.toContain('running');
      await app.ctx.executions.flush(app.ctx.db);
    }
    const after = await t().ctx.db.selectFrom('services').select('executions').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(Number(after.executions)).toBe(Number(before.executions));
    // The generated key was not redeemed by a fetch of a switched-off script.
    expect(await t().ctx.db.selectFrom('activeKeys').select('key').where('key', '=', key!).executeTakeFirst()).toBeUndefined();

    const on = await call(t().app, 'PUT', `${SCRIPTS}/switch`, { key: s.serviceKey, body: { enabled: true } });
    expect(on.body.data.enabled).toBeUndefined();
    await eventually(async () => (await fetchOn(second, script.id, key!)).body === 'print("running")');
  });

  it('uses a default sentence when no message is set, and takes the switch on upload', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'off-at-birth', code: 'print(1)', enabled: false });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await fetchOn(t().app, script.id, key!);
    expect(res.body).toMatch(/^error\("Keyward: SCRIPT_DISABLED: This script is switched off/);
  });

  it('refuses a message over 200 characters or of the wrong type, naming the field', async () => {
    const s = await seedService(t().ctx);
    await uploadScript(t().app, s, { name: 'msg', code: 'print(1)' });
    const long = await call(t().app, 'PUT', `${SCRIPTS}/msg`, { key: s.serviceKey, body: { disabledMessage: 'x'.repeat(201) } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'disabledMessage' });
    expect(long.body.error).toContain('200 characters');
    const wrong = await call(t().app, 'PUT', `${SCRIPTS}/msg`, { key: s.serviceKey, body: { enabled: 'false' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'enabled' });
    const upload = await call(t().app, 'POST', SCRIPTS, {
      key: s.serviceKey,
      body: { name: 'msg2', code: 'print(1)', disabledMessage: 'y'.repeat(201) },
    });
    expect(upload.status).toBe(400);
    expect(upload.body.field).toBe('disabledMessage');
  });
});
