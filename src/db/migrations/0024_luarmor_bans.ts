import type { Kysely } from 'kysely';

// Bans with a reason and an end (contract §19) and what the Luarmor-compatible API needs (§16).
// - A key's ban carries its reason and its end (null = permanent); a ban past its end counts as no ban, so nothing
//   has to run at the end for the key to be usable again. Generated keys carry the same columns, because Luarmor's
//   blacklist may ban a key nobody redeemed yet.
// - unban_token: the current ban's token (Luarmor's unban link). Blacklist entries made by that ban carry it too, so
//   spending the token removes exactly those entries and never one the seller added by hand.
// - Scripts gain ffa (free for all) and silent (the loader prints nothing), Luarmor's script options (§16.3).
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['active_keys', 'generated_keys']) {
    await db.schema.alterTable(table).addColumn('ban_reason', 'text').execute();
    await db.schema.alterTable(table).addColumn('ban_expires_at', 'bigint').execute();
    await db.schema.alterTable(table).addColumn('unban_token', 'text').execute();
    await db.schema.createIndex(`${table}_unban_token_idx`).on(table).columns(['service_id', 'unban_token']).execute();
  }
  await db.schema.alterTable('blacklist').addColumn('unban_token', 'text').execute();
  await db.schema
    .alterTable('scripts')
    .addColumn('ffa', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('scripts')
    .addColumn('silent', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scripts').dropColumn('silent').execute();
  await db.schema.alterTable('scripts').dropColumn('ffa').execute();
  await db.schema.alterTable('blacklist').dropColumn('unban_token').execute();
  for (const table of ['active_keys', 'generated_keys']) {
    await db.schema.dropIndex(`${table}_unban_token_idx`).execute();
    await db.schema.alterTable(table).dropColumn('unban_token').execute();
    await db.schema.alterTable(table).dropColumn('ban_expires_at').execute();
    await db.schema.alterTable(table).dropColumn('ban_reason').execute();
  }
}
