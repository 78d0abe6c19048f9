import type { Kysely } from 'kysely';

// Key listing (contract §7.2): one service may hold 1,000,000 keys, and a page must come back well under a
// second. Each sortable column gets a (service_id, column, key) index, so a page is an index range walk that
// stops after `limit` rows instead of a sort of every key (`key` last: ties break by key). Status filters get
// their own (service_id, status, created_at), the default sort under the most common filter. (service_id, key)
// serves export's keyset walk and the generated half of the listing, whose other sort columns are constant.
// The last_used_at and executions indexes cost a little on every validation; without them a sort by those
// columns reads the whole service.
const ACTIVE = ['created_at', 'expires_at', 'last_used_at', 'executions'];
const GENERATED = ['created_at', 'expires_at'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ACTIVE) {
    await db.schema.createIndex(`active_keys_service_${column}_idx`).on('active_keys').columns(['service_id', column, 'key']).execute();
  }
  await db.schema.createIndex('active_keys_service_status_idx').on('active_keys').columns(['service_id', 'status', 'created_at']).execute();
  await db.schema.createIndex('active_keys_service_key_idx').on('active_keys').columns(['service_id', 'key']).execute();
  for (const column of GENERATED) {
    await db.schema
      .createIndex(`generated_keys_service_${column}_idx`)
      .on('generated_keys')
      .columns(['service_id', column, 'key'])
      .execute();
  }
  await db.schema
    .createIndex('generated_keys_service_status_idx')
    .on('generated_keys')
    .columns(['service_id', 'status', 'created_at'])
    .execute();
  await db.schema.createIndex('generated_keys_service_key_idx').on('generated_keys').columns(['service_id', 'key']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ACTIVE) await db.schema.dropIndex(`active_keys_service_${column}_idx`).execute();
  for (const column of GENERATED) await db.schema.dropIndex(`generated_keys_service_${column}_idx`).execute();
  for (const name of [
    'active_keys_service_status_idx',
    'active_keys_service_key_idx',
    'generated_keys_service_status_idx',
    'generated_keys_service_key_idx',
  ]) {
    await db.schema.dropIndex(name).execute();
  }
}
