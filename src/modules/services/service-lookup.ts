import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { findServiceByRef, type ServiceRow } from './services.repository.ts';

// Public client routes name a service on every call. Its row is read-mostly, so each instance keeps
// it briefly; a change (settings, deletion) shows within this window on every instance.
const TTL_MS = 5000;
const MAX_ENTRIES = 10_000;
const cache = new WeakMap<AppContext, Map<string, { row: ServiceRow; until: number }>>();

export async function serviceForClient(ctx: AppContext, ref: string): Promise<ServiceRow> {
  let entries = cache.get(ctx);
  if (!entries) cache.set(ctx, (entries = new Map()));
  const now = Date.now();
  const hit = entries.get(ref);
  if (hit && hit.until > now) return hit.row;
  const row = await findServiceByRef(ctx.db, ref);
  if (!row) throw notFound('Service');
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(ref, { row, until: now + TTL_MS });
  return row;
}

/** Drops this instance's copy at once after a local change (other instances follow within TTL_MS). */
export function forgetService(ctx: AppContext, row: { id: string; identifier: string }): void {
  const entries = cache.get(ctx);
  entries?.delete(row.id);
  entries?.delete(row.identifier);
}
