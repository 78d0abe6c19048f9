import type { Kysely } from 'kysely';

// Contract §23: a Luarmor user made bound to an HWID with key_days (or a never-used key given an identifier) is an
// active key whose time has not started. pending_days carries its days until its first validation, which sets
// expires_at to that moment plus the days and clears the column in one conditional write; null on every other key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('active_keys').addColumn('pending_days', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('active_keys').dropColumn('pending_days').execute();
}
