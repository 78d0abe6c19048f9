import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ShortLinksTable } from '../../db/schema.ts';

export const insertShortLink = (db: Db, row: Insertable<ShortLinksTable>) => db.insertInto('shortLinks').values(row).execute();

/** Counts the click and reads the target in one statement, so concurrent clicks all count. */
export const followShortLink = (db: Db, slug: string) =>
  db
    .updateTable('shortLinks')
    .set((eb) => ({ clicks: eb('clicks', '+', 1) }))
    .where('slug', '=', slug)
    .returning('url')
    .executeTakeFirst();

export async function pageShortLinks(db: Db, serviceId: string, opts: { offset: number; limit: number }) {
  const base = db.selectFrom('shortLinks').where('serviceId', '=', serviceId);
  const [items, total] = await Promise.all([
    base
      .select(['slug', 'serviceId', 'url', 'clicks', 'createdAt'])
      .orderBy('createdAt', 'desc')
      .orderBy('slug')
      .offset(opts.offset)
      .limit(opts.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.n) };
}

export const deleteShortLink = (db: Db, serviceId: string, slug: string) =>
  db.deleteFrom('shortLinks').where('serviceId', '=', serviceId).where('slug', '=', slug).executeTakeFirst();
