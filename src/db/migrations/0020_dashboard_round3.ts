import type { Kysely } from 'kysely';

// The get-key page wears the seller's colour (contract §15: `accentColor`, `#rrggbb`, in the key-system
// settings); null keeps the dashboard's own blue.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('key_system_settings').addColumn('accent_color', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('key_system_settings').dropColumn('accent_color').execute();
}
