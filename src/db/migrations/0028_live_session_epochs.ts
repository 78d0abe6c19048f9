import type { Kysely } from 'kysely';

// A counter per service that every end (or close) of one of its live sessions moves, in the same transaction. On
// PostgreSQL an instance keeps the rows of the sessions it answers and, for each batch of heartbeats, reads only the
// counters of their services: a counter that moved says some session of that service ended, and its kept rows are
// read again. Reading a few counters costs the database far less than reading every heartbeat's row
// (docs/benchmarks.md). The row is created at a service's first open; it goes with its service.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('live_session_epochs')
    .addColumn('service_id', 'text', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('live_session_epochs').execute();
}
