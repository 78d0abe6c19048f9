import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../helpers/app.ts';
import { runKeyward } from '../helpers/cli.ts';

/**
 * `keyward --help` and a mistyped command answer from the usage texts alone: each command loads the app when it runs.
 * Loading it first (the database drivers, Fastify, every module) took most of a second before the CLI said anything.
 * What was loaded is read from the CommonJS cache on exit, where the drivers and Fastify land however they are imported.
 */
const scratch = mkdtempSync(join(tmpdir(), 'keyward-cli-startup-'));
const probe = join(scratch, 'loaded.mjs');
writeFileSync(
  probe,
  `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const heavy = Object.keys(require.cache).filter((path) => /node_modules\\/(better-sqlite3|pg|fastify)\\//.test(path));
  process.stderr.write('LOADED ' + JSON.stringify([...new Set(heavy.map((path) => path.match(/node_modules\\/([^/]+)\\//)[1]))]) + '\\n');
});
`,
);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function loadedBy(args: string[]) {
  const run = await runKeyward(args, {
    NODE_OPTIONS: `--import ${probe}`,
    DATA_DIR: scratch,
    DATABASE_URL: '',
    KEYWARD_SECRET: TEST_SECRET,
    BASE_URL: 'http://keyward.test',
  });
  const line = run.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  expect(line, run.stderr).toBeDefined();
  return { run, loaded: JSON.parse(line!.slice('LOADED '.length)) as string[] };
}

describe('the CLI loads a command’s code only when that command runs', () => {
  it('keyward --help, a command’s --help and an unknown command load neither a database driver nor Fastify', async () => {
    for (const args of [['--help'], ['keys', 'export', '--help'], ['nonsense']]) {
      const { run, loaded } = await loadedBy(args);
      expect(run.stdout + run.stderr).toContain('Usage:');
      expect(loaded, args.join(' ')).toEqual([]);
    }
  });

  it('keyward migrate does load them (the probe sees a command that needs the app)', async () => {
    const { run, loaded } = await loadedBy(['migrate']);
    expect(run.code, run.stderr).toBe(0);
    expect(loaded).toContain('better-sqlite3');
  });
});
