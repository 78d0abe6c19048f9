import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EventDeliveriesTable, EventEndpointsTable } from '../../db/schema.ts';

const ENDPOINT_COLUMNS = ['id', 'serviceId', 'url', 'events', 'createdAt'] as const;

export const insertEndpoint = (db: Db, row: Insertable<EventEndpointsTable>) => db.insertInto('eventEndpoints').values(row).execute();

export const listEndpoints = (db: Db, serviceId: string) =>
  db.selectFrom('eventEndpoints').select(ENDPOINT_COLUMNS).where('serviceId', '=', serviceId).orderBy('createdAt').orderBy('id').execute();

export const findEndpoint = (db: Db, serviceId: string, id: string) =>
  db.selectFrom('eventEndpoints').select(ENDPOINT_COLUMNS).where('serviceId', '=', serviceId).where('id', '=', id).executeTakeFirst();

/** The delivery worker's view: the address and secret as they are when it sends. */
export const endpointForDelivery = (db: Db, id: string) =>
  db.selectFrom('eventEndpoints').select(['id', 'url', 'secretSealed']).where('id', '=', id).executeTakeFirst();

export const deleteEndpoint = (db: Db, serviceId: string, id: string) =>
  db.deleteFrom('eventEndpoints').where('serviceId', '=', serviceId).where('id', '=', id).executeTakeFirst();

export const countEndpoints = async (db: Db, serviceId: string) =>
  Number(
    (
      await db
        .selectFrom('eventEndpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('serviceId', '=', serviceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

export const DELIVERIES_KEPT = 50;

/** Records one attempt and keeps only the endpoint's last DELIVERIES_KEPT. */
export async function recordDelivery(db: Db, row: Insertable<EventDeliveriesTable>) {
  await db.insertInto('eventDeliveries').values(row).execute();
  const keep = db
    .selectFrom('eventDeliveries')
    .select('id')
    .where('endpointId', '=', row.endpointId)
    .orderBy('id', 'desc')
    .limit(DELIVERIES_KEPT);
  await db.deleteFrom('eventDeliveries').where('endpointId', '=', row.endpointId).where('id', 'not in', keep).execute();
}

export const listDeliveries = (db: Db, endpointId: string) =>
  db
    .selectFrom('eventDeliveries')
    .select(['id', 'messageId', 'eventType', 'attempt', 'ok', 'statusCode', 'error', 'attemptedAt'])
    .where('endpointId', '=', endpointId)
    .orderBy('id', 'desc')
    .limit(DELIVERIES_KEPT)
    .execute();
