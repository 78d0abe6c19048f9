import { sql } from 'kysely';
import type { DbHandle } from '../src/db/database.ts';

/**
 * Seeds `total` keys into one service straight through SQL (70 % active, half of those bound to one HWID; about
 * 2 % banned, 2 % paused, 10 % premium, 25 % lifetime, one in seven with a note), for benchmarks at a million keys.
 */
export async function seedKeys(handle: DbHandle, serviceId: string, total: number): Promise<void> {
  const active = Math.round(total * 0.7);
  // Inlined as SQL text: as a bound parameter PostgreSQL would type it integer and refuse epoch milliseconds.
  const baseMs = Date.now() - 400 * 86_400_000;
  const base = sql.raw(String(baseMs));

  // Spread values deterministically: ~2 % banned, ~2 % paused, 10 % premium, 25 % lifetime, half the active keys bound.
  const series = (n: number) =>
    handle.dialect === 'postgres'
      ? sql`SELECT g::bigint AS i FROM generate_series(1, ${n}::integer) g`
      : sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s`;
  const pad = (expr: string) => (handle.dialect === 'postgres' ? `lpad(${expr}::text, 9, '0')` : `printf('%09d', ${expr})`);
  const status = `CASE WHEN i % 50 = 0 THEN 'banned' WHEN i % 50 = 1 THEN 'paused' ELSE 'active' END`;
  const expires = `CASE WHEN i % 4 = 0 THEN NULL ELSE ${baseMs} + (i * 104729 % 1000000) * 60000 END`;
  await sql`INSERT INTO active_keys (key, service_id, hwid, note, is_premium, no_hwid_validation, status, expires_at, chat_id, executions, created_at, activated_at, last_used_at, hwid_reset_at, hwid_reset_count, max_hwids, hwid_count)
    SELECT ${sql.raw(`'A' || ${pad('i')}`)}, ${serviceId}, CASE WHEN i % 2 = 0 THEN ${sql.raw(`'HW-' || ${pad('i')}`)} END, CASE WHEN i % 7 = 0 THEN 'reseller batch' END,
      CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, 0, ${sql.raw(status)}, ${sql.raw(expires)}, NULL, i * 31 % 1000,
      ${base} + (i * 7919 % 1000000) * 1000, ${base} + (i * 7919 % 1000000) * 1000, CASE WHEN i % 3 = 0 THEN NULL ELSE ${base} + (i * 13 % 1000000) * 30000 END, NULL, 0, 1,
      CASE WHEN i % 2 = 0 THEN 1 ELSE 0 END
    FROM (${series(active)}) s`.execute(handle.db);
  await sql`INSERT INTO key_hwids (key, service_id, hwid, position) SELECT key, service_id, hwid, 1 FROM active_keys WHERE service_id = ${serviceId} AND hwid IS NOT NULL`.execute(
    handle.db,
  );
  await sql`INSERT INTO generated_keys (key, service_id, note, is_premium, no_hwid_validation, status, expires_at, chat_id, expiration_type, created_at, max_hwids)
    SELECT ${sql.raw(`'G' || ${pad('i')}`)}, ${serviceId}, NULL, CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, 0, ${sql.raw(status)}, ${sql.raw(expires)}, NULL,
      CASE WHEN i % 4 = 0 THEN 'lifetime' ELSE 'byDate' END, ${base} + (i * 7919 % 1000000) * 1000 + 500, 1
    FROM (${series(total - active)}) s`.execute(handle.db);
  // PostgreSQL: vacuumed as autovacuum leaves a table within a minute or so of a bulk insert. Until then each row read
  // looks its transaction up (hint bits not yet set, no page all-visible), and whether autovacuum had reached the
  // tables before or during a measurement split the runs in two: counts of the million keys took 130–250 ms or 380–490.
  await sql.raw(handle.dialect === 'postgres' ? 'VACUUM (ANALYZE)' : 'ANALYZE').execute(handle.db);
  // PostgreSQL: the seed and the vacuum leave a few hundred MB of dirty pages, which the checkpointer otherwise writes
  // over the next minutes (checkpoint_completion_target of checkpoint_timeout), while the caller measures.
  if (handle.dialect === 'postgres') await sql`CHECKPOINT`.execute(handle.db);
}
