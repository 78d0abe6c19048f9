import type { Kysely } from 'kysely';

// Executors (contract §29). A script may say which executors it runs on (scripts.executors: JSON of { allow } or
// { deny }, null for any). Analytics count runs by the executor each reports, per service and UTC day (at most 200
// names a day; the rest are counted as "other"), in two tables shaped like the hourly ones: totals per name, and
// refusals per name and code. A live session remembers its executor, so each one's peak of sessions at once can be
// counted where the session opens.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scripts').addColumn('executors', 'text').execute();
  await db.schema.alterTable('live_sessions').addColumn('executor', 'text').execute();

  await db.schema
    .createTable('analytics_executors')
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('executor', 'text', (c) => c.notNull())
    .addColumn('executions', 'bigint', (c) => c.notNull())
    .addColumn('valid', 'bigint', (c) => c.notNull())
    .addColumn('refused', 'bigint', (c) => c.notNull())
    .addColumn('peak_sessions', 'integer', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_executors_pk', ['service_id', 'at', 'executor'])
    .execute();
  await db.schema
    .createTable('analytics_executor_codes')
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('executor', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_executor_codes_pk', ['service_id', 'at', 'executor', 'code'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('analytics_executor_codes').execute();
  await db.schema.dropTable('analytics_executors').execute();
  await db.schema.alterTable('live_sessions').dropColumn('executor').execute();
  await db.schema.alterTable('scripts').dropColumn('executors').execute();
}
