import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { SCRIPTS } from './script-helpers.ts';

// A real command obfuscator that prefixes a comment: what is served differs from what was uploaded.
const t = useTestApp({ OBFUSCATOR_IB1_COMMAND: `printf -- '-- protected by IB1\\n'; cat` });
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function fetchOn(scriptId: string, key: string) {
  return t().app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${scriptId}?key=${encodeURIComponent(key)}&hwid=pc-1` });
}

describe('versions of an obfuscated script', () => {
  it('X-Script-SHA256 is the digest of the obfuscated code served; a version keeps the source digest; a restore obfuscates that version again', async () => {
    const s = await seedService(t().ctx);
    const created = await call(t().app, 'POST', SCRIPTS, {
      key: s.serviceKey,
      body: { name: 'obf', code: 'print("v1")', obfuscationType: 'IB1' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    await t().ctx.jobs.settled();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const v1 = await fetchOn(id, key!);
    expect(v1.body).toBe('-- protected by IB1\nprint("v1")');
    expect(v1.headers['x-script-sha256']).toBe(sha('-- protected by IB1\nprint("v1")'));
    expect(v1.headers['x-script-version']).toBe('1');

    expect((await call(t().app, 'PUT', `${SCRIPTS}/obf`, { key: s.serviceKey, body: { code: 'print("v2")' } })).status).toBe(200);
    await t().ctx.jobs.settled();
    expect((await fetchOn(id, key!)).body).toBe('-- protected by IB1\nprint("v2")');
    const versions = await call(t().app, 'GET', `${SCRIPTS}/obf/versions`, { key: s.serviceKey });
    expect(versions.body.data.items.map((v: { sha256: string }) => v.sha256)).toEqual([sha('print("v2")'), sha('print("v1")')]);

    const before = await t().ctx.db.selectFrom('scripts').select('outputBlob').where('id', '=', id).executeTakeFirstOrThrow();
    const restored = await call(t().app, 'POST', `${SCRIPTS}/obf/versions/1/restore`, { key: s.serviceKey });
    expect(restored.status).toBe(200);
    expect(restored.body.data.status).toBe('processing');
    // While the obfuscator runs nothing unobfuscated is served.
    const during = await fetchOn(id, key!);
    expect(during.body).not.toContain('print("v1")\n');
    await t().ctx.jobs.settled();
    const after = await fetchOn(id, key!);
    expect(after.body).toBe('-- protected by IB1\nprint("v1")');
    expect(after.headers['x-script-version']).toBe('1');
    expect(after.headers['x-script-sha256']).toBe(sha('-- protected by IB1\nprint("v1")'));
    // The previous output blob is gone; only the two source versions and the new output remain.
    const row = await t().ctx.db.selectFrom('scripts').select(['sourceBlob', 'outputBlob']).where('id', '=', id).executeTakeFirstOrThrow();
    const kept = await t().ctx.db.selectFrom('scriptVersions').select('blobId').where('scriptId', '=', id).execute();
    const blobs = await t()
      .ctx.db.selectFrom('scriptChunks')
      .select('blobId')
      .where('blobId', 'in', [...kept.map((k) => k.blobId), row.outputBlob!])
      .execute();
    expect(blobs).toHaveLength(3);
    expect(await t().ctx.db.selectFrom('scriptChunks').select('seq').where('blobId', '=', before.outputBlob!).execute()).toEqual([]);
  });
});
