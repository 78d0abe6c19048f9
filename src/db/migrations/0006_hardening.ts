import type { Kysely } from 'kysely';

// Failed sign-ins for usernames that name no account (contract §10): counted like an account's own, so
// the lockout answers alike whether the name exists. Keyed by the name as typed, the way sign-in looks it up.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('login_failures')
    .addColumn('username', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_failures_updated_idx').on('login_failures').column('updated_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('login_failures').execute();
}
