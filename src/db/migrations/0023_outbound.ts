import { sql, type Kysely } from 'kysely';

// Contract §22: a buyer-role grant that Discord refused (403, 404) no longer counts as held. discord_role_members
// still says whom Keyward means to hold the role; it now also says whether Discord confirmed it (confirmed_at),
// how often it refused (refusals), when the sweep tries again (retry_at) and why it refused (last_error).
// Rows from before this migration are taken as confirmed: their grant was sent, and a refused one was reported.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('discord_role_members').addColumn('confirmed_at', 'bigint').execute();
  await db.schema
    .alterTable('discord_role_members')
    .addColumn('refusals', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('discord_role_members').addColumn('retry_at', 'bigint').execute();
  await db.schema.alterTable('discord_role_members').addColumn('last_error', 'text').execute();
  await sql`update discord_role_members set confirmed_at = granted_at`.execute(db);
  await db.schema.createIndex('discord_role_members_retry_idx').on('discord_role_members').columns(['retry_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('discord_role_members_retry_idx').execute();
  for (const column of ['last_error', 'retry_at', 'refusals', 'confirmed_at']) {
    await db.schema.alterTable('discord_role_members').dropColumn(column).execute();
  }
}
