import type { Kysely } from 'kysely';

// Exclusive background jobs (src/jobs/runner.ts): one row per job name says which instance runs it until when,
// so several instances on one database take turns instead of running the same prune at once.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_leases').execute();
}
