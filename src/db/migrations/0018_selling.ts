import type { Kysely } from 'kysely';

// Selling (contract §12.1–12.2). A generated key whose time starts at redemption keeps its length in
// duration_days and no expiry until then. Products are what a shop sells; shop_settings holds each service's
// shop secrets sealed. shop_orders is the idempotency record of a delivery: its unique
// (service_id, provider, order_id) decides on every instance which of several concurrent retries makes the keys.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('generated_keys').addColumn('duration_days', 'integer').execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('expiration_type', 'text', (c) => c.notNull())
    .addColumn('days', 'integer')
    .addColumn('is_premium', 'integer', (c) => c.notNull())
    .addColumn('max_hwids', 'integer', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('products_service_idx').on('products').columns(['service_id', 'created_at']).execute();

  await db.schema
    .createTable('shop_settings')
    .addColumn('service_id', 'text', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('generic_secret_sealed', 'text')
    .addColumn('sellix_secret_sealed', 'text')
    .addColumn('sellauth_secret_sealed', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('shop_orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    // No foreign key: an order stays listed after its product is deleted, under the name it was sold as.
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('keys', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('shop_orders_order_unique', ['service_id', 'provider', 'order_id'])
    .execute();
  await db.schema.createIndex('shop_orders_service_idx').on('shop_orders').columns(['service_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shop_orders').execute();
  await db.schema.dropTable('shop_settings').execute();
  await db.schema.dropTable('products').execute();
  await db.schema.alterTable('generated_keys').dropColumn('duration_days').execute();
}
