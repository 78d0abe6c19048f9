import type { Kysely } from 'kysely';

// Teams and resellers (contract §17). service_members holds who besides the owner may use a service and in which
// role; a reseller's quota lives on its row so a generate spends it with one conditional UPDATE in the transaction
// that creates the keys (keys_left >= count), which settles concurrent generates on any number of instances.
// service_invites are single-use codes; accepting deletes the row, so two accepts of one code cannot both succeed.
// Keys remember who made them (created_by, null for shops, the key system, imports), carried from the generated key
// to the active one on redemption; audit entries keep the acting member's username as it was then.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_members')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('keys_left', 'integer')
    .addColumn('max_days', 'integer')
    .addColumn('allow_lifetime', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('joined_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('service_members_pk', ['service_id', 'account_id'])
    .execute();
  await db.schema.createIndex('service_members_account_idx').on('service_members').column('account_id').execute();

  await db.schema
    .createTable('service_invites')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('keys_left', 'integer')
    .addColumn('max_days', 'integer')
    .addColumn('allow_lifetime', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('service_invites_service_idx').on('service_invites').columns(['service_id', 'created_at']).execute();

  // The username is kept beside the id (as the audit log keeps it), so a key's record needs no join to show it.
  for (const table of ['generated_keys', 'active_keys']) {
    await db.schema.alterTable(table).addColumn('created_by', 'text').execute();
    await db.schema.alterTable(table).addColumn('created_by_username', 'text').execute();
  }
  await db.schema.createIndex('generated_keys_created_by_idx').on('generated_keys').columns(['service_id', 'created_by']).execute();
  await db.schema.createIndex('active_keys_created_by_idx').on('active_keys').columns(['service_id', 'created_by']).execute();
  await db.schema.alterTable('audit_log').addColumn('actor_username', 'text').execute();
  await db.schema.createIndex('audit_log_actor_idx').on('audit_log').columns(['service_id', 'actor_account_id', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_actor_idx').execute();
  await db.schema.alterTable('audit_log').dropColumn('actor_username').execute();
  await db.schema.dropIndex('active_keys_created_by_idx').execute();
  await db.schema.dropIndex('generated_keys_created_by_idx').execute();
  for (const table of ['generated_keys', 'active_keys']) {
    await db.schema.alterTable(table).dropColumn('created_by_username').execute();
    await db.schema.alterTable(table).dropColumn('created_by').execute();
  }
  await db.schema.dropTable('service_invites').execute();
  await db.schema.dropTable('service_members').execute();
}
