import type { Kysely } from 'kysely';

// Discord as the seller's console (contract §24). Accounts gain the Discord user they act as in slash commands
// (unique: one Discord user speaks for one account, so a command's actor is never ambiguous). Services gain the
// application id and staff log channel, and what the setup checklist remembers between reads: when commands were
// last synced, when a signed interaction last arrived, and Discord's last refusal in words.
// chat_interactions holds every interaction id acted on: the primary key settles Discord's retries of one id on any
// number of instances, so the work is done once; `answer` is what the first delivery answered, for the retry.
// chat_notice_counts counts SESSION_LIMIT refusals per key and hour, so the notice goes out once when the 4th comes.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('discord_user_id', 'text').execute();
  await db.schema.createIndex('accounts_discord_user_idx').unique().on('accounts').column('discord_user_id').execute();
  for (const column of ['chat_application_id', 'chat_log_channel_id', 'chat_last_error']) {
    await db.schema.alterTable('services').addColumn(column, 'text').execute();
  }
  for (const column of ['chat_commands_synced_at', 'chat_verified_at']) {
    await db.schema.alterTable('services').addColumn(column, 'bigint').execute();
  }
  await db.schema
    .createTable('chat_interactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('answer', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('chat_interactions_created_idx').on('chat_interactions').column('created_at').execute();
  await db.schema
    .createTable('chat_notice_counts')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_notice_counts_pk', ['service_id', 'subject', 'hour'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chat_notice_counts').execute();
  await db.schema.dropTable('chat_interactions').execute();
  for (const column of ['chat_application_id', 'chat_log_channel_id', 'chat_last_error', 'chat_commands_synced_at', 'chat_verified_at']) {
    await db.schema.alterTable('services').dropColumn(column).execute();
  }
  await db.schema.dropIndex('accounts_discord_user_idx').execute();
  await db.schema.alterTable('accounts').dropColumn('discord_user_id').execute();
}
