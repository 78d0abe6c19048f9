import type { Kysely } from 'kysely';

// Reseller key policy (contract §25): besides how many keys and how long, the owner says what a reseller's keys may
// carry: how many HWIDs, whether HWID validation may be off, premium, and how many devices may run at once (null:
// the reseller chooses). Kept on the member row (and on an invite, copied to the row on accept) so the check runs
// inside the transaction that spends the quota, against the row as it stands.
const COLUMNS = ['max_hwids', 'allow_no_hwid_validation', 'allow_premium', 'max_sessions'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['service_members', 'service_invites']) {
    await db.schema
      .alterTable(table)
      .addColumn('max_hwids', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('allow_no_hwid_validation', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('allow_premium', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable(table).addColumn('max_sessions', 'integer').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['service_invites', 'service_members']) {
    for (const column of [...COLUMNS].reverse()) await db.schema.alterTable(table).dropColumn(column).execute();
  }
}
