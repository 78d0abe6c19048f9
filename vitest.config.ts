import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects run the same files: one on SQLite, one on the machine's PostgreSQL.
// scripts/test.mjs picks which ones run (PostgreSQL only when it answers, and always under CI).
const SQLITE = { KEYWARD_TEST_DB: 'sqlite' };
const POSTGRES = { KEYWARD_TEST_DB: 'postgres' };
// Files run one after another in a worker without a fresh module graph each (isolate: false): importing Fastify, the
// database drivers and the app's modules again for every file was over half of the suite's time (1,253 s of
// "import" in a 36-minute CI run). Every file starts its own app on its own database, so nothing a file keeps is
// module state. A file that replaces a module (vi.mock) needs a graph of its own and runs isolated, in the
// *-isolated projects.
const MOCKING = ['test/signin/signin.timing.security.test.ts'];
// What every project shares. Written out in each rather than inherited (`extends: true`): an inherited `include`
// is joined with a project's own, so the *-isolated projects ran every file a third time.
const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // vitest's default is one worker per core less one: a single worker on a two-core machine, idle while a file
  // waits on PostgreSQL, a server process or Chromium. One more worker than cores keeps both cores busy
  // (the whole suite: 27 minutes with one worker, 18 with three on a machine loaded by other jobs).
  maxWorkers: availableParallelism() + 1,
  // expect.poll waits for a condition (never a sleep); its 1 s default is shorter than a browser round trip
  // on a loaded two-core CI machine, where one server process and Chromium share the cores with other files.
  expect: { poll: { timeout: 10_000 } },
  pool: 'forks' as const,
  // The server and the CLI compiled once, for the files that start them as processes (the file says why).
  globalSetup: ['test/helpers/compiled-build.ts'],
};
const ALL = ['test/**/*.test.ts'];
const postgresSetup = [...common.globalSetup, 'test/helpers/postgres-template.ts'];

export default defineConfig({
  test: {
    maxWorkers: common.maxWorkers,
    projects: [
      {
        test: { ...common, name: 'sqlite', env: SQLITE, include: ALL, isolate: false, exclude: [...configDefaults.exclude, ...MOCKING] },
      },
      { test: { ...common, name: 'sqlite-isolated', env: SQLITE, include: MOCKING } },
      {
        test: {
          ...common,
          name: 'postgres',
          env: POSTGRES,
          globalSetup: postgresSetup,
          include: ALL,
          isolate: false,
          // The browser tests check what the pages do; the routes behind them run on PostgreSQL in their own
          // files, so the pages are driven once, on SQLite (the embedded default), where they cost least.
          exclude: [...configDefaults.exclude, 'test/**/*.browser.test.ts', ...MOCKING],
        },
      },
      { test: { ...common, name: 'postgres-isolated', env: POSTGRES, globalSetup: postgresSetup, include: MOCKING } },
    ],
  },
});
