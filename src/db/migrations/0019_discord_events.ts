import type { Kysely } from 'kysely';

// The Discord buyer role and event webhooks (contract §12.3, §12.4). Both send through the one durable outbox:
// webhook_outbox gains `kind` (chat | discordRole | event; every older row is a chat message) and `target` (the
// event endpoint's id, or the Discord user's id), so one worker, one claim and one retry record serve all three.
// discord_role_members is the set of users the role was granted to: inserting or deleting a row decides, on every
// instance alike, which change sends the one PUT or DELETE. event_deliveries keeps each endpoint's last attempts.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('services').addColumn('chat_bot_token_sealed', 'text').execute();
  await db.schema.alterTable('services').addColumn('chat_role_id', 'text').execute();

  await db.schema
    .alterTable('webhook_outbox')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('chat'))
    .execute();
  await db.schema.alterTable('webhook_outbox').addColumn('target', 'text').execute();
  await db.schema.createIndex('webhook_outbox_kind_due_idx').on('webhook_outbox').columns(['kind', 'status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('discord_role_members')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('granted_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('discord_role_members_pk', ['service_id', 'chat_id'])
    .execute();

  await db.schema
    .createTable('event_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_endpoints_service_idx').on('event_endpoints').columns(['service_id', 'created_at']).execute();

  await db.schema
    .createTable('event_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('event_endpoints.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('ok', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_deliveries_endpoint_idx').on('event_deliveries').columns(['endpoint_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('event_deliveries').execute();
  await db.schema.dropTable('event_endpoints').execute();
  await db.schema.dropTable('discord_role_members').execute();
  await db.schema.dropIndex('webhook_outbox_kind_due_idx').execute();
  await db.schema.alterTable('webhook_outbox').dropColumn('target').execute();
  await db.schema.alterTable('webhook_outbox').dropColumn('kind').execute();
  await db.schema.alterTable('services').dropColumn('chat_role_id').execute();
  await db.schema.alterTable('services').dropColumn('chat_bot_token_sealed').execute();
}
