import type { Kysely } from 'kysely';

// Live sessions (contract §18). A key may limit how many devices run it at once (max_sessions, 0 = no limit; carried
// from a generated key or a product to the active key), a script may ask for a session on every run (heartbeat), and
// a service sets how often its clients heartbeat. live_sessions is the database implementation of the live state
// (modules/sessions/live-sessions.db.ts): a row per open session; ended_reason says why one ended, so the next
// heartbeat, on any instance, can answer with it until the row is pruned.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['active_keys', 'generated_keys', 'products']) {
    await db.schema
      .alterTable(table)
      .addColumn('max_sessions', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema
    .alterTable('scripts')
    .addColumn('heartbeat', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('services')
    .addColumn('session_heartbeat_seconds', 'integer', (c) => c.notNull().defaultTo(30))
    .execute();

  // The most sessions live at once in each hour (analytics' peakSessions): a maximum, so flushes keep the larger.
  await db.schema
    .alterTable('analytics_buckets')
    .addColumn('peak_sessions', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('live_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('key', 'text')
    .addColumn('hwid', 'text', (c) => c.notNull())
    .addColumn('script_id', 'text')
    .addColumn('heartbeat_seconds', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('key_expires_at', 'bigint')
    .addColumn('ended_reason', 'text')
    .addColumn('ended_at', 'bigint')
    .execute();
  await db.schema.createIndex('live_sessions_service_key_idx').on('live_sessions').columns(['service_id', 'key']).execute();
  await db.schema.createIndex('live_sessions_service_started_idx').on('live_sessions').columns(['service_id', 'started_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('live_sessions').execute();
  await db.schema.alterTable('analytics_buckets').dropColumn('peak_sessions').execute();
  await db.schema.alterTable('services').dropColumn('session_heartbeat_seconds').execute();
  await db.schema.alterTable('scripts').dropColumn('heartbeat').execute();
  for (const table of ['active_keys', 'generated_keys', 'products']) await db.schema.alterTable(table).dropColumn('max_sessions').execute();
}
