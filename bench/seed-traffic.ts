import { sql } from 'kysely';
import type { DbHandle } from '../src/db/database.ts';

/**
 * Keys for the traffic of real buyers (issue 21): many keys, each validated rarely. Straight through SQL, so
 * 50,000 or 300,000 keys take seconds. The load generator builds the same strings (coldKey, redeemKey below)
 * without a file: bench/load.ts's wrk script and bench/cpu-cost.ts format them from a number.
 */
export const coldKey = (i: number) => `C${String(i).padStart(9, '0')}`;
export const coldHwid = (i: number) => `HW-${String(i).padStart(9, '0')}`;
export const redeemKey = (i: number) => `R${String(i).padStart(9, '0')}`;
export const redeemHwid = (i: number) => `RH-${String(i).padStart(9, '0')}`;

const series = (handle: DbHandle, n: number) =>
  handle.dialect === 'postgres'
    ? sql`SELECT g::bigint AS i FROM generate_series(1, ${n}::integer) g`
    : sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s`;
const padded = (handle: DbHandle, prefix: string) =>
  sql.raw(handle.dialect === 'postgres' ? `'${prefix}' || lpad(i::text, 9, '0')` : `'${prefix}' || printf('%09d', i)`);

/**
 * When the seeded bound keys were last used (BENCH_COLD_LAST_USED). `bound`, the default: at their binding, which
 * writes lastUsedAt, so every validation of the run is a key's second use within the hour (buyers who run the script
 * more than once an hour). `yesterday`: each key's first validation of the run is its first use of the hour, the
 * case where the last-used sort's index entry moves (migration 0022).
 */
const LAST_USED_AGO_MS: Record<string, number> = { bound: 0, yesterday: 86_400_000 };

/** `count` active lifetime keys numbered 1…count, key i bound to coldHwid(i): each validates as KEY_VALID. */
export async function seedBoundKeys(handle: DbHandle, serviceId: string, count: number): Promise<void> {
  const when = process.env.BENCH_COLD_LAST_USED ?? 'bound';
  const ago = LAST_USED_AGO_MS[when];
  if (ago === undefined) throw new Error(`BENCH_COLD_LAST_USED is bound or yesterday, not ${when}`);
  const now = sql.raw(String(Date.now()));
  const lastUsed = sql.raw(String(Date.now() - ago));
  await sql`INSERT INTO active_keys (key, service_id, hwid, note, is_premium, no_hwid_validation, status, expires_at, chat_id, executions, created_at, activated_at, last_used_at, hwid_reset_at, hwid_reset_count, max_hwids, hwid_count)
    SELECT ${padded(handle, 'C')}, ${serviceId}, ${padded(handle, 'HW-')}, NULL, 0, 0, 'active', NULL, NULL, 0, ${now}, ${now}, ${lastUsed}, NULL, 0, 1, 1
    FROM (${series(handle, count)}) s`.execute(handle.db);
  await sql`INSERT INTO key_hwids (key, service_id, hwid, position)
    SELECT key, service_id, hwid, 1 FROM active_keys WHERE service_id = ${serviceId} AND hwid IS NOT NULL`.execute(handle.db);
  await sql`ANALYZE`.execute(handle.db);
}

/** `count` unredeemed lifetime generated keys numbered 1…count (redeemKey): each is redeemed by its first validation. */
export async function seedGeneratedKeys(handle: DbHandle, serviceId: string, count: number): Promise<void> {
  const now = sql.raw(String(Date.now()));
  await sql`INSERT INTO generated_keys (key, service_id, note, is_premium, no_hwid_validation, status, expires_at, chat_id, expiration_type, created_at, max_hwids)
    SELECT ${padded(handle, 'R')}, ${serviceId}, NULL, 0, 0, 'active', NULL, NULL, 'lifetime', ${now}, 1
    FROM (${series(handle, count)}) s`.execute(handle.db);
  await sql`ANALYZE`.execute(handle.db);
}
