import type { Db } from '../../db/database.ts';

export const findVariables = (db: Db, serviceId: string) =>
  db.selectFrom('serviceVariables').select(['variables', 'updatedAt']).where('serviceId', '=', serviceId).executeTakeFirst();

export const saveVariables = (db: Db, serviceId: string, variables: string, now: number) =>
  db
    .insertInto('serviceVariables')
    .values({ serviceId, variables, updatedAt: now })
    .onConflict((oc) => oc.column('serviceId').doUpdateSet({ variables, updatedAt: now }))
    .execute();
