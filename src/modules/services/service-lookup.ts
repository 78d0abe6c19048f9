import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import type { Clock } from '../../lib/time.ts';
import { findServiceByRef, type ServiceRow } from './services.repository.ts';

// Public client routes name a service on every call. Its row is read-mostly, so each instance keeps
// it briefly; a change (settings, deletion) shows within this window on every instance.
const TTL_MS = 5000;
const MAX_ENTRIES = 10_000;

/** One instance's copies of service rows, by id and by identifier (AppContext.services). */
export class ServiceLookup {
  private readonly entries = new Map<string, { row: ServiceRow; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The cached row, if this instance holds a current one: lets a hot hook stay synchronous. */
  peek(ref: string): ServiceRow | undefined {
    const hit = this.entries.get(ref);
    return hit && hit.until > this.clock() ? hit.row : undefined;
  }

  /** The service a public route names, or 404. */
  async get(ref: string): Promise<ServiceRow> {
    const now = this.clock();
    const hit = this.entries.get(ref);
    if (hit && hit.until > now) return hit.row;
    const row = await findServiceByRef(this.db, ref);
    if (!row) throw notFound('Service');
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    // Under both names: a route names the service by its identifier, validation by its id (the HWID-locked message).
    const entry = { row, until: now + TTL_MS };
    this.entries.set(row.id, entry);
    this.entries.set(row.identifier, entry);
    return row;
  }

  /** Drops this instance's copy at once after a local change (other instances follow within TTL_MS). */
  forget(row: { id: string; identifier: string }): void {
    this.entries.delete(row.id);
    this.entries.delete(row.identifier);
  }
}

export const serviceForClient = (ctx: AppContext, ref: string): Promise<ServiceRow> => ctx.services.get(ref);
export const forgetService = (ctx: AppContext, row: { id: string; identifier: string }): void => ctx.services.forget(row);
