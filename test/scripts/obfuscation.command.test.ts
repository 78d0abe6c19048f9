import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { anotherInstance, startTestApp, useTestApp, type TestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { fetchScript, SCRIPTS, uploadScript } from './script-helpers.ts';

// Real commands through /bin/sh: one that prefixes a comment, one that fails, one that never ends.
const t = useTestApp({
  OBFUSCATOR_IB1_COMMAND: `printf -- '-- protected by IB1\\n'; cat`,
  OBFUSCATOR_WYNFUSCATOR_COMMAND: `cat >/dev/null; echo 'syntax error near line 1' >&2; exit 3`,
  OBFUSCATOR_LURAPH_COMMAND: 'sleep 30',
  OBFUSCATOR_TIMEOUT_MS: '1500',
  OBFUSCATOR_MAX_OUTPUT_BYTES: '4096',
});
const settled = () => t().ctx.jobs.settled();

async function scriptRow(id: string) {
  return t().ctx.db.selectFrom('scripts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('command obfuscator', () => {
  it('runs in the background and serves the command output once ready, keeping the original', async () => {
    const s = await seedService(t().ctx);
    const code = 'print("ib1 marker")';
    const created = await call(t().app, 'POST', SCRIPTS, { key: s.serviceKey, body: { name: 'ib1', code, obfuscationType: 'IB1' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ status: 'processing', obfuscationType: 'IB1', size: code.length });
    await settled();
    const list = await call(t().app, 'GET', `${SCRIPTS}?search=ib1`, { key: s.serviceKey });
    expect(list.body.data.items[0]).toMatchObject({ name: 'ib1', status: 'ready' });
    expect(list.body.data.items[0]).not.toHaveProperty('failureReason');
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await fetchScript(t().app, created.body.data.id, { key: key!, hwid: 'pc' });
    expect(res.body).toBe(`-- protected by IB1\n${code}`);
    const row = await scriptRow(created.body.data.id);
    expect(row.outputBlob).not.toBe(row.sourceBlob);
    expect(row.leaseUntil).toBeNull();
  });

  it('marks the script failed with the command’s reason and never serves the code', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'wyn', code: 'print("do not leak")', obfuscationType: 'WYNFUSCATOR' });
    await settled();
    const row = await scriptRow(script.id);
    expect(row.status).toBe('failed');
    expect(row.failureReason).toBe('the obfuscator exited with code 3: syntax error near line 1');
    const view = await call(t().app, 'GET', `${SCRIPTS}?search=wyn`, { key: s.serviceKey });
    expect(view.body.data.items[0]).toMatchObject({
      status: 'failed',
      failureReason: 'the obfuscator exited with code 3: syntax error near line 1',
    });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const res = await fetchScript(t().app, script.id, { key: key!, hwid: 'pc' });
    expect(res.body).toContain('SCRIPT_FAILED');
    expect(res.body).not.toContain('do not leak');
  });

  it('stops a command over its time limit and says so; nothing is served while it runs', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'slow', code: 'print("still secret")', obfuscationType: 'LURAPH' });
    const [key] = await generateKeys(t().app, s.serviceKey);
    const during = await fetchScript(t().app, script.id, { key: key!, hwid: 'pc' });
    expect(during.status).toBe(200);
    expect(during.body).toMatch(/^error\(".*SCRIPT_NOT_READY/);
    expect(during.body).not.toContain('still secret');
    await settled();
    const row = await scriptRow(script.id);
    expect(row).toMatchObject({ status: 'failed', failureReason: 'the obfuscator timed out after 1500 ms' });
  });

  it('fails a command whose output is over the size limit', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'huge', code: '-'.repeat(5000), obfuscationType: 'IB1' });
    await settled();
    expect(await scriptRow(script.id)).toMatchObject({ status: 'failed', failureReason: "the obfuscator's output exceeds 4096 bytes" });
  });

  it('re-runs from the kept original when the type or the code changes', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'switch', code: 'print("v1")', obfuscationType: 'IB1' });
    await settled();
    const [key] = await generateKeys(t().app, s.serviceKey);
    const get = async () => (await fetchScript(t().app, script.id, { key: key!, hwid: 'pc' })).body;
    expect(await get()).toBe('-- protected by IB1\nprint("v1")');

    const none = await call(t().app, 'PUT', `${SCRIPTS}/switch`, { key: s.serviceKey, body: { obfuscationType: 'NONE' } });
    expect(none.body.data).toMatchObject({ obfuscationType: 'NONE', status: 'ready' });
    expect(await get()).toBe('print("v1")');

    const back = await call(t().app, 'PUT', `${SCRIPTS}/switch`, { key: s.serviceKey, body: { obfuscationType: 'IB1' } });
    expect(back.body.data.status).toBe('processing');
    await settled();
    expect(await get()).toBe('-- protected by IB1\nprint("v1")');

    const code = await call(t().app, 'PUT', `${SCRIPTS}/switch`, { key: s.serviceKey, body: { code: 'print("v2")' } });
    expect(code.body.data).toMatchObject({ status: 'processing', obfuscationType: 'IB1' });
    await settled();
    expect(await get()).toBe('-- protected by IB1\nprint("v2")');
    // Only the current source and output remain stored.
    const row = await scriptRow(script.id);
    const blobs = await t()
      .ctx.db.selectFrom('scriptChunks')
      .select('blobId')
      .distinct()
      .where('blobId', 'in', [row.sourceBlob, row.outputBlob!])
      .execute();
    expect(blobs).toHaveLength(2);
  });

  it('does not re-run when only the name or visibility changes', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'stay', code: 'x()', obfuscationType: 'IB1' });
    await settled();
    const before = await scriptRow(script.id);
    const res = await call(t().app, 'PUT', `${SCRIPTS}/stay`, { key: s.serviceKey, body: { visible: false, name: 'stay2' } });
    expect(res.body.data.status).toBe('ready');
    const after = await scriptRow(script.id);
    expect(after.outputBlob).toBe(before.outputBlob);
    expect(after.jobId).toBe(before.jobId);
  });
});

describe('background work across a restart', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.database.drop();
  });

  it('stops a running job on app.close() and the next start finishes it', async () => {
    const first = await startTestApp({ OBFUSCATOR_IB1_COMMAND: 'sleep 60', OBFUSCATOR_TIMEOUT_MS: '120000' });
    apps.push(first);
    const s = await seedService(first.ctx);
    const script = await uploadScript(first.app, s, { name: 'resume', code: 'print("resumed")', obfuscationType: 'IB1' });
    const started = Date.now();
    await first.app.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    const left = await first.ctx.db.selectFrom('scripts').selectAll().where('id', '=', script.id).executeTakeFirstOrThrow();
    expect(left).toMatchObject({ status: 'processing', leaseUntil: null });

    const config = { ...first.config, obfuscation: { ...first.config.obfuscation, commands: { IB1: `printf -- '-- second\\n'; cat` } } };
    const second = await anotherInstance(first, config);
    try {
      await second.ctx.jobs.settled();
      const row = await second.ctx.db.selectFrom('scripts').selectAll().where('id', '=', script.id).executeTakeFirstOrThrow();
      expect(row.status).toBe('ready');
      const [key] = await generateKeys(second, s.serviceKey);
      expect((await fetchScript(second, script.id, { key: key!, hwid: 'h' })).body).toBe('-- second\nprint("resumed")');
    } finally {
      await second.close();
    }
  });

  it('leaves a job another instance holds under a live lease alone', async () => {
    const app = await startTestApp({ OBFUSCATOR_IB1_COMMAND: 'cat' });
    apps.push(app);
    try {
      const s = await seedService(app.ctx);
      await app.app.close(); // no worker of this app runs any more
      const other = await buildApp({ config: app.config, database: app.database.handle, clock: app.clock.read, logger: false });
      const now = app.clock.now;
      await other.ctx.db
        .insertInto('scripts')
        .values({
          id: '00000000-0000-4000-8000-000000000001',
          serviceId: s.id,
          name: 'held',
          obfuscationType: 'IB1',
          visible: 1,
          status: 'processing',
          failureReason: null,
          sourceBlob: 'blob-held',
          size: 1,
          outputBlob: null,
          outputSize: null,
          jobId: 'job-1',
          leaseUntil: now + 60_000,
          createdAt: now,
          updatedAt: now,
        })
        .execute();
      await other.ready();
      await other.ctx.jobs.settled();
      const row = await other.ctx.db.selectFrom('scripts').selectAll().where('name', '=', 'held').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'processing', leaseUntil: now + 60_000 });
      await other.close();
    } finally {
      await app.app.close();
    }
  });
});
