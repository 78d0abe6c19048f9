import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import * as migration from '../../src/db/migrations/0017_script_versions.ts';
import { useTestApp } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';

const t = useTestApp();
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

it('migration 0017 makes every existing script version 1 of itself, hashing its code chunk by chunk', async () => {
  const s = await seedService(t().ctx);
  const raw = t().ctx.db.withoutPlugins() as unknown as Kysely<unknown>;
  await migration.down(raw);
  const now = t().clock.now;
  const insertScript = (id: string, name: string, type: string, source: string, output: string | null, size: number) =>
    sql`INSERT INTO scripts (id, service_id, name, obfuscation_type, visible, status, failure_reason, source_blob, size,
        output_blob, output_size, job_id, lease_until, created_at, updated_at)
      VALUES (${id}, ${s.id}, ${name}, ${type}, 1, ${output ? 'ready' : 'processing'}, NULL, ${source}, ${size},
        ${output}, ${output ? size : null}, NULL, NULL, ${now}, ${now})`.execute(raw);
  const chunk = (blob: string, seq: number, data: string) =>
    sql`INSERT INTO script_chunks (blob_id, seq, data) VALUES (${blob}, ${seq}, ${data})`.execute(raw);
  await chunk('blob-plain', 0, 'print("first chunk") ');
  await chunk('blob-plain', 1, '-- second chunk é');
  await insertScript('00000000-0000-4000-8000-00000000000a', 'plain', 'NONE', 'blob-plain', 'blob-plain', 41);
  await chunk('blob-src', 0, 'print("source")');
  await chunk('blob-out', 0, '-- obfuscated\nprint("source")');
  await insertScript('00000000-0000-4000-8000-00000000000b', 'obf', 'IB1', 'blob-src', 'blob-out', 15);
  await insertScript('00000000-0000-4000-8000-00000000000c', 'pending', 'IB1', 'blob-src', null, 15);
  await migration.up(raw);

  const versions = await t()
    .ctx.db.selectFrom('scriptVersions')
    .select(['scriptId', 'version', 'blobId', 'sha256'])
    .where('scriptId', 'like', '00000000-0000-4000-8000-00000000000%')
    .orderBy('scriptId')
    .execute();
  expect(versions).toEqual([
    {
      scriptId: '00000000-0000-4000-8000-00000000000a',
      version: 1,
      blobId: 'blob-plain',
      sha256: sha('print("first chunk") -- second chunk é'),
    },
    { scriptId: '00000000-0000-4000-8000-00000000000b', version: 1, blobId: 'blob-src', sha256: sha('print("source")') },
    { scriptId: '00000000-0000-4000-8000-00000000000c', version: 1, blobId: 'blob-src', sha256: sha('print("source")') },
  ]);
  const scripts = await t()
    .ctx.db.selectFrom('scripts')
    .select(['name', 'enabled', 'disabledMessage', 'currentVersion', 'outputSha256'])
    .where('serviceId', '=', s.id)
    .orderBy('name')
    .execute();
  expect(scripts).toEqual([
    { name: 'obf', enabled: 1, disabledMessage: null, currentVersion: 1, outputSha256: sha('-- obfuscated\nprint("source")') },
    { name: 'pending', enabled: 1, disabledMessage: null, currentVersion: 1, outputSha256: null },
    { name: 'plain', enabled: 1, disabledMessage: null, currentVersion: 1, outputSha256: sha('print("first chunk") -- second chunk é') },
  ]);
});
