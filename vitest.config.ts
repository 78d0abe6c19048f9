import { defineConfig } from 'vitest/config';

// Two projects run the same files: one on SQLite, one on the machine's PostgreSQL.
// scripts/test.mjs picks which ones run (PostgreSQL only when it answers, and always under CI).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition (never a sleep); its 1 s default is shorter than a browser round trip
    // on a loaded two-core CI machine, where one server process and Chromium share the cores with another file.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'sqlite', env: { KEYWARD_TEST_DB: 'sqlite' } } },
      {
        extends: true,
        test: { name: 'postgres', env: { KEYWARD_TEST_DB: 'postgres' }, globalSetup: ['test/helpers/postgres-template.ts'] },
      },
    ],
  },
});
