import { sql, type Kysely } from 'kysely';

// A counter per service that every end (or close) of one of its live sessions moves, and the ended sessions stamped
// with the counter's new value, in one statement. On PostgreSQL an instance keeps the rows of the sessions it answers
// and, for each batch of heartbeats, reads only the counters of their services: a counter that moved says some session
// of that service ended, and the stamps say which, so only those kept rows are let go. Reading a few counters costs the
// database far less than reading every heartbeat's row (docs/benchmarks.md). The counter is created at a service's
// first open and goes with its service; the stamps' index holds ended sessions only, so the flush of heartbeat times
// (which touches neither column) still rewrites rows in place.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('live_session_epochs')
    .addColumn('service_id', 'text', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('live_sessions').addColumn('ended_seq', 'bigint').execute();
  await db.schema
    .createIndex('live_sessions_service_ended_idx')
    .on('live_sessions')
    .columns(['service_id', 'ended_seq'])
    .where(sql.ref('ended_seq'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('live_sessions_service_ended_idx').execute();
  await db.schema.alterTable('live_sessions').dropColumn('ended_seq').execute();
  await db.schema.dropTable('live_session_epochs').execute();
}
