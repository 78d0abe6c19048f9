import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLog } from '../../src/context.ts';
import { createContext } from '../../src/modules/state.ts';
import { openReader } from '../../src/db/database.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { runKeyward } from '../helpers/cli.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.ts';
import { ADMIN_URL } from '../helpers/postgres-template.ts';
import { seedService } from '../helpers/seed.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

/**
 * Contract §11: `keyward backup` takes a consistent snapshot while the server runs and writes; `keyward restore`
 * refuses while a server holds the database, then puts the snapshot back, and the server starts on it with every
 * record. SQLite: the online backup and the DATA_DIR lock; PostgreSQL: pg_dump -Fc and pg_restore.
 */
const work = mkdtempSync(join(tmpdir(), 'keyward-backup-'));
let database: TestDatabase;
let env: Record<string, string>;
let serviceId = '';
let serviceKey = '';

function cli(args: string[]) {
  return runKeyward(args, { BASE_URL: '', ...env });
}

async function generate(server: ServerProcess, count: number): Promise<string[]> {
  const response = await fetch(`${server.url}/api/v1/keys/api/generate`, {
    method: 'POST',
    headers: { 'x-api-key': serviceKey, 'content-type': 'application/json' },
    body: JSON.stringify({ expirationType: 'lifetime', count }),
  });
  if (response.status !== 201) {
    const text = await response.text();
    const requestId = /"requestId":"([^"]+)"/.exec(text)?.[1];
    const logged = requestId ? server.lines.filter((line) => line.includes(requestId)).join('\n') : '';
    throw new Error(`generate answered ${response.status}: ${text}\n${logged}`);
  }
  const body = (await response.json()) as { data: { keys: Array<{ key: string }> } };
  return body.data.keys.map((k) => k.key);
}

async function keysIn(): Promise<Set<string>> {
  const reader = openReader(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { sqliteFile: join(env.DATA_DIR!, 'keyward.db') });
  try {
    const generated = await reader.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', serviceId).execute();
    const active = await reader.db.selectFrom('activeKeys').select('key').where('serviceId', '=', serviceId).execute();
    return new Set([...generated, ...active].map((r) => r.key));
  } finally {
    await reader.close();
  }
}

async function backupRuns() {
  const reader = openReader(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { sqliteFile: join(env.DATA_DIR!, 'keyward.db') });
  try {
    return await reader.db.selectFrom('backupRuns').select(['sizeBytes', 'keyCount', 'databaseKind', 'finishedAt']).execute();
  } finally {
    await reader.close();
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  env = { KEYWARD_SECRET: TEST_SECRET, ...database.env };
  const ctx = await createContext({ config: loadConfig(env), database: database.handle, ownsDatabase: false, log: silentLog, role: 'cli' });
  const s = await seedService(ctx);
  serviceId = s.id;
  serviceKey = s.serviceKey;
  await ctx.close();
  // Restore needs the database to itself: the test keeps no connection open.
  await database.handle.close();
});

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  if (testDialect() === 'postgres') {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(env.DATABASE_URL!).pathname.slice(1)} WITH (FORCE)`);
    await admin.end();
  } else rmSync(env.DATA_DIR!, { recursive: true, force: true });
});

describe('backup and restore', () => {
  it('backs up while the server writes, refuses to restore under a running server, and the server starts on the restored snapshot with every record', async () => {
    const snapshot = join(work, 'keyward.backup');
    let beforeBackup = new Set<string>();
    let printedKeys = 0;
    let totalAfterWrites = 0;
    let server = await startServerProcess(env);
    try {
      // Enough data that the copy takes more than one step of SQLite's online backup.
      for (let i = 0; i < 8; i++) await generate(server, 1000);

      // A writer that keeps adding keys until the backup has finished.
      const acknowledged: string[] = [];
      let writing = true;
      let failed: unknown = null;
      const writer = (async () => {
        while (writing) acknowledged.push(...(await generate(server, 25)));
      })().catch((error: unknown) => {
        failed = error;
      });
      // A failed write ends the test with its error, not with a wait for keys that never come.
      const writtenAtLeast = async (count: number) => {
        while (acknowledged.length < count) {
          if (failed) throw failed;
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      await writtenAtLeast(100);
      beforeBackup = await keysIn();
      const backup = await cli(['backup', '--out', snapshot]);
      const writtenDuringBackup = acknowledged.length;
      await writtenAtLeast(writtenDuringBackup + 50);
      writing = false;
      await writer;
      if (failed) throw failed;

      expect(backup.stderr).not.toContain('Error');
      expect(backup.code).toBe(0);
      const printed = /: ([\d.]+) MB[,;] (?:the database holds )?(\d+) keys \((\d+) not yet redeemed, (\d+) redeemed\)/.exec(backup.stdout);
      expect(printed, backup.stdout).not.toBeNull();
      expect(Number(printed![1])).toBeGreaterThan(0);
      expect(statSync(snapshot).size).toBeGreaterThan(0);
      printedKeys = Number(printed![2]);
      expect(printedKeys).toBeGreaterThanOrEqual(beforeBackup.size);
      // Recorded in the live database for the dashboard's backup status (GET /admin/backup).
      expect(await backupRuns()).toEqual([
        { sizeBytes: statSync(snapshot).size, keyCount: printedKeys, databaseKind: testDialect(), finishedAt: expect.any(Number) },
      ]);

      // The server still holds the database: restore refuses and changes nothing.
      const refused = await cli(['restore', snapshot]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        testDialect() === 'sqlite'
          ? /a Keyward server \(pid \d+, started .*\) is using .*stop it first/
          : /other connection\(s\) use this database: stop every Keyward server first/,
      );
      totalAfterWrites = (await keysIn()).size;
      expect(totalAfterWrites).toBe(8000 + acknowledged.length);
    } finally {
      await server.stop();
    }

    const restored = await cli(['restore', snapshot]);
    expect(restored.stderr).not.toMatch(/failed|Error/);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/^Restored .* keys \(/);

    server = await startServerProcess(env);
    try {
      // Contract §22: the record of the backup just made survives the restore (the snapshot never held it), so the
      // Staff page's last backup is that one.
      const reader = openReader(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { sqliteFile: join(env.DATA_DIR!, 'keyward.db') });
      try {
        expect(await reader.db.selectFrom('backupRuns').select('keyCount').execute()).toEqual([{ keyCount: printedKeys }]);
      } finally {
        await reader.close();
      }
      const keys = await keysIn();
      // Every key that existed when the backup started is back; the ones written after it are not (a snapshot).
      expect([...beforeBackup].filter((key) => !keys.has(key))).toEqual([]);
      expect(keys.size).toBeLessThan(totalAfterWrites);
      // SQLite counts the snapshot itself; pg_dump's count is of the database just after the dump, a little more.
      if (testDialect() === 'sqlite') expect(keys.size).toBe(printedKeys);
      else expect(keys.size).toBeLessThanOrEqual(printedKeys);
      const validate = await fetch(`${server.url}/api/v1/keys/validate?service=${serviceId}&key=${[...keys][0]}&hwid=pc-1`);
      expect(validate.status).toBe(200);
      expect(((await validate.json()) as { data: { valid: boolean } }).data.valid).toBe(true);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
