import { createQueryId, type Compilable, type CompiledQuery } from 'kysely';
import { directRunnerOf, prepareOnPostgres, type Db } from './database.ts';

/**
 * Builds a Kysely query once per database handle and re-runs its SQL with new parameter values,
 * skipping the builder, the CamelCase transform and the compiler on every call (a large share of a
 * hot query's CPU); where the driver allows it, the SQL also bypasses Kysely's executor. The query is built with distinct sentinel arguments so each SQL parameter can be
 * traced back to the argument it came from; a query whose shape depends on its arguments must not use this.
 */
export function preparedQuery<Args extends readonly unknown[], Row>(
  build: (db: Db, ...args: Args) => Compilable<Row>,
  sentinels: Args,
): (db: Db, ...args: Args) => Promise<Row[]> {
  const compiled = new WeakMap<Db, { query: CompiledQuery<Row>; slots: number[] }>();
  return async (db, ...args) => {
    let entry = compiled.get(db);
    if (!entry) {
      const query = build(db, ...sentinels).compile();
      const slots = query.parameters.map((value) => {
        const slot = sentinels.indexOf(value);
        if (slot < 0) throw new Error(`prepared query parameter ${String(value)} is not one of the sentinels`);
        return slot;
      });
      prepareOnPostgres(query.sql);
      entry = { query, slots };
      compiled.set(db, entry);
    }
    const parameters = entry.slots.map((slot) => args[slot]);
    const direct = directRunnerOf(db)?.(entry.query.sql, parameters);
    if (direct) return (await direct).map(camelCaseKeys) as Row[];
    const result = await db.executeQuery<Row>({ ...entry.query, parameters, queryId: createQueryId() });
    return result.rows;
  };
}

const camelNames = new Map<string, string>();
/** The CamelCasePlugin's mapping for rows that bypass it (our columns are plain snake_case). */
function camelCaseKeys(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column in row) {
    let name = camelNames.get(column);
    if (name === undefined) camelNames.set(column, (name = column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())));
    out[name] = row[column];
  }
  return out;
}
