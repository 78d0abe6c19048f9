import type { Kysely } from 'kysely';

// Contract §13.1: one Ed25519 key pair per service signs the validation answers a client asks to be signed. The
// private key is sealed under the server secret (lib/secrets.ts). Existing and new services get their row on first
// use (modules/signing/signing.service.ts), so this migration only makes the table on both dialects.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_signing_keys')
    .addColumn('service_id', 'text', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('service_signing_keys').execute();
}
