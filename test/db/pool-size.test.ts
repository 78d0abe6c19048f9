import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createTestDatabase, testDialect } from '../helpers/database.ts';

// DATABASE_POOL_SIZE: how many PostgreSQL connections an instance may hold, so concurrent redemptions share commits.
const config = (env: Record<string, string>) => loadConfig({ KEYWARD_SECRET: 'test-secret-0123456789abcdef', ...env });

describe('DATABASE_POOL_SIZE', () => {
  it('defaults to 10 and takes a whole number from 1 to 500', () => {
    expect(config({}).databasePoolSize).toBe(10);
    expect(config({ DATABASE_POOL_SIZE: '40' }).databasePoolSize).toBe(40);
  });

  it.each(['0', '501', '2.5', 'many'])('refuses %s with a sentence naming it', (value) => {
    expect(() => config({ DATABASE_POOL_SIZE: value })).toThrow(ConfigError);
    expect(() => config({ DATABASE_POOL_SIZE: value })).toThrow(/^DATABASE_POOL_SIZE must be/);
  });

  it("sizes the instance's PostgreSQL pool (SQLite has one connection and no pool)", async () => {
    const database = await createTestDatabase();
    const app = await buildApp({ config: config({ ...database.env, DATABASE_POOL_SIZE: '3' }), logger: false });
    try {
      const poolUse = app.ctx.poolUse;
      if (testDialect() === 'sqlite') {
        expect(poolUse).toBeNull();
        return;
      }
      // Five statements wait for a lock another connection holds: three get a connection, two wait for one.
      const holder = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await holder.connect();
      try {
        await holder.query('select pg_advisory_lock(4242)');
        const statements = Array.from({ length: 5 }, () => sql`select pg_advisory_xact_lock_shared(4242)`.execute(app.ctx.db));
        await expect.poll(() => poolUse!()).toEqual({ total: 3, idle: 0, waiting: 2 });
        await holder.query('select pg_advisory_unlock(4242)');
        await Promise.all(statements);
      } finally {
        await holder.end();
      }
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
