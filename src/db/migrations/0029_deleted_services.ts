import type { Kysely } from 'kysely';

// A deleted service leaves its id and identifier behind (contract §27): its live sessions' next heartbeat, on any
// instance and after its session rows went with it, answers 410 SESSION_ENDED (KEY_DELETED) rather than an unknown
// service's 404, so the buyer's running script stops. A few bytes per deletion; kept, as a loader may run for days.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('deleted_services')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deleted_services_identifier_idx').on('deleted_services').column('identifier').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('deleted_services').execute();
}
