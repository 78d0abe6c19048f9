import type { Kysely } from 'kysely';

// Audit log (contract §7.6) and analytics counters (§7.5).
// Audit entries carry no foreign key to services: a service's entries (its deletion included) stay in the
// owner's account log until retention prunes them. The account key does cascade, so deleting an account
// removes its log with it.
// Analytics rows are hourly counters per service; day buckets are sums of hours. They carry no foreign
// key either, so a batch flushed while a service is being deleted never fails; the prune job removes
// the rows of services that are gone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('service_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_account_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('target', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_service_idx').on('audit_log').columns(['service_id', 'at']).execute();
  await db.schema.createIndex('audit_log_account_idx').on('audit_log').columns(['account_id', 'at']).execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();

  await db.schema
    .createTable('analytics_buckets')
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('validations', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('valid', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('refused', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('executions', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redemptions', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('key_system_keys', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('analytics_buckets_pk', ['service_id', 'at'])
    .execute();
  await db.schema
    .createTable('analytics_codes')
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_codes_pk', ['service_id', 'at', 'code'])
    .execute();
  await db.schema
    .createTable('analytics_scripts')
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('script_id', 'text', (c) => c.notNull())
    .addColumn('executions', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_scripts_pk', ['service_id', 'at', 'script_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('analytics_scripts').execute();
  await db.schema.dropTable('analytics_codes').execute();
  await db.schema.dropTable('analytics_buckets').execute();
  await db.schema.dropTable('audit_log').execute();
}
