import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_SECRET, useTestApp } from '../helpers/app.ts';
import { runKeyward } from '../helpers/cli.ts';
import { DAY_MS } from '../helpers/records.ts';
import { seedService } from '../helpers/seed.ts';
import { seedKeys } from './keys-data.fixtures.ts';

// Contract §7.4: `keyward keys export|import`, run as the real command on this file's database.
const t = useTestApp();
const dir = mkdtempSync(join(tmpdir(), 'keyward-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyward(args: string[]) {
  return runKeyward(args, { ...t().database.env, KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test' });
}

const KEYS = [`cliA${process.pid}xxxxxxxx`, `cliB${process.pid}xxxxxxxx`];

describe('keyward keys export / import', () => {
  it('exports CSV to a file and JSON to stdout, with plain progress lines when not on a terminal', async () => {
    const s = await seedService(t().ctx);
    const now = t().clock.now;
    await seedKeys(t().ctx, s.id, [
      { key: KEYS[0]!, type: 'active', createdAt: now - DAY_MS, hwids: ['pc-1'], executions: 3 },
      { key: KEYS[1]!, type: 'generated', createdAt: now, note: 'cli, "note"' },
    ]);
    const out = join(dir, 'keys.csv');
    const csv = await keyward(['keys', 'export', '--service', s.identifier, '--out', out]);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stderr).toContain('Exporting 2/2 keys');
    const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.key, r.type, r.hwids, r.note, r.executions])).toEqual([
      [KEYS[0], 'active', 'pc-1', '', '3'],
      [KEYS[1], 'generated', '', 'cli, "note"', '0'],
    ]);

    const json = await keyward(['keys', 'export', '--service', s.id, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const records = JSON.parse(json.stdout) as Array<{ key: string; type: string }>;
    expect(records.map((r) => [r.key, r.type])).toEqual([
      [KEYS[0], 'active'],
      [KEYS[1], 'generated'],
    ]);

    // Move them: free the strings, then import the export into another service.
    await t().ctx.db.deleteFrom('activeKeys').where('serviceId', '=', s.id).execute();
    await t().ctx.db.deleteFrom('generatedKeys').where('serviceId', '=', s.id).execute();
    const target = await seedService(t().ctx);
    const imported = await keyward(['keys', 'import', '--service', target.identifier, '--format', 'keyward-csv', out]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('Imported 1 active and 1 generated keys; skipped 0');
    const active = await t()
      .ctx.db.selectFrom('activeKeys')
      .select(['serviceId', 'executions', 'hwid'])
      .where('key', '=', KEYS[0]!)
      .executeTakeFirst();
    expect(active).toEqual({ serviceId: target.id, executions: 3, hwid: 'pc-1' });
    const audit = await t()
      .ctx.db.selectFrom('auditLog')
      .select(['actorKind', 'action'])
      .where('serviceId', '=', target.id)
      .where('action', 'like', 'keys.%')
      .execute();
    expect(audit).toEqual([{ actorKind: 'system', action: 'keys.import' }]);
  });

  it('refuses invalid records listing them, and an unknown service, with exit code 1 and nothing imported', async () => {
    const s = await seedService(t().ctx);
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify([{ user_key: 'short', identifier: 'x' }]));
    const bad = await keyward(['keys', 'import', '--service', s.identifier, '--format', 'luarmor', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('record 0: user_key must be a key');
    const unknown = await keyward(['keys', 'export', '--service', 'no-such-service']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Service not found');
    expect(
      await t().ctx.db.selectFrom('auditLog').select('id').where('serviceId', '=', s.id).where('action', '=', 'keys.import').execute(),
    ).toEqual([]);
  });
});
