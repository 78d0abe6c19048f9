import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ProductsTable, ShopOrdersTable, ShopSettingsTable } from '../../db/schema.ts';

const PRODUCT_COLUMNS = [
  'id',
  'serviceId',
  'name',
  'expirationType',
  'days',
  'isPremium',
  'maxHwids',
  'maxSessions',
  'note',
  'createdAt',
  'updatedAt',
] as const;

export const listProducts = (db: Db, serviceId: string, limit: number, offset: number) =>
  db
    .selectFrom('products')
    .select(PRODUCT_COLUMNS)
    .where('serviceId', '=', serviceId)
    .orderBy('createdAt')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();

export async function countProducts(db: Db, serviceId: string) {
  const row = await db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A product of the service; another service's product is as good as missing. */
export const findProduct = (db: Db, serviceId: string, id: string) =>
  db.selectFrom('products').select(PRODUCT_COLUMNS).where('serviceId', '=', serviceId).where('id', '=', id).executeTakeFirst();

/** A product by id alone: what a shop's delivery URL names. */
export const findProductById = (db: Db, id: string) =>
  db.selectFrom('products').select(PRODUCT_COLUMNS).where('id', '=', id).executeTakeFirst();

export const insertProduct = (db: Db, row: Insertable<ProductsTable>) => db.insertInto('products').values(row).execute();

export const updateProduct = (db: Db, serviceId: string, id: string, patch: Updateable<ProductsTable>) =>
  db.updateTable('products').set(patch).where('serviceId', '=', serviceId).where('id', '=', id).executeTakeFirst();

export const deleteProduct = (db: Db, serviceId: string, id: string) =>
  db.deleteFrom('products').where('serviceId', '=', serviceId).where('id', '=', id).executeTakeFirst();

export const findShopSettings = (db: Db, serviceId: string) =>
  db.selectFrom('shopSettings').selectAll().where('serviceId', '=', serviceId).executeTakeFirst();

export async function saveShopSettings(db: Db, row: Insertable<ShopSettingsTable>) {
  const { serviceId: _serviceId, ...rest } = row;
  await db
    .insertInto('shopSettings')
    .values(row)
    .onConflict((oc) => oc.column('serviceId').doUpdateSet(rest))
    .execute();
}

/**
 * Claims the order: the row is written only when no row holds (service, provider, orderId) yet. The unique
 * constraint decides between concurrent retries on any number of instances: on PostgreSQL a second insert
 * waits for the first's transaction and then does nothing; SQLite runs writers one at a time. Answers whether
 * this caller won.
 */
export async function claimOrder(db: Db, row: Insertable<ShopOrdersTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('shopOrders')
    .values(row)
    .onConflict((oc) => oc.columns(['serviceId', 'provider', 'orderId']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export const setOrderKeys = (db: Db, id: string, keys: string[]) =>
  db
    .updateTable('shopOrders')
    .set({ keys: JSON.stringify(keys) })
    .where('id', '=', id)
    .execute();

export const findOrder = (db: Db, serviceId: string, provider: ShopOrdersTable['provider'], orderId: string) =>
  db
    .selectFrom('shopOrders')
    .selectAll()
    .where('serviceId', '=', serviceId)
    .where('provider', '=', provider)
    .where('orderId', '=', orderId)
    .executeTakeFirst();

export const listOrders = (db: Db, serviceId: string, limit: number, offset: number) =>
  db
    .selectFrom('shopOrders')
    .selectAll()
    .where('serviceId', '=', serviceId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();

export async function countOrders(db: Db, serviceId: string) {
  const row = await db
    .selectFrom('shopOrders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('serviceId', '=', serviceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
