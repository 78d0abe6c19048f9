import type { paths } from './schema';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

type JsonOf<R, S extends number> = R extends Record<S, { content: { 'application/json': infer B } }> ? B : never;
type SuccessBody<Op> = Op extends { responses: infer R } ? JsonOf<R, 200> | JsonOf<R, 201> : never;

/**
 * The `data` of a route's success answer, read from the generated schema (npm run gen:api), so a page's
 * types follow the server instead of a hand-written copy that drifts.
 */
export type ApiData<P extends keyof paths, M extends Method & keyof paths[P] = 'get' & keyof paths[P]> =
  SuccessBody<paths[P][M]> extends { data: infer D } ? D : never;

/** One element of an array type (a row of a list's `items`). */
export type ItemOf<T> = T extends ReadonlyArray<infer E> ? E : never;

/** The page of a list route (contract §1): `{ items, page, limit, total, totalPages }`. */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}
