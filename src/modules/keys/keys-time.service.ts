// Edits of a key's time by days (contract §4): one key's extension and the service-wide compensation. Each locks the
// rows it changes first (key-locks.repository.ts, the order every time edit and bulk action shares) and runs in
// inTransaction, so concurrent edits on any number of instances wait for each other and all count (contract §27).
import type { AppContext } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Db } from '../../db/database.ts';
import { AppError, invalid, notFound } from '../../errors.ts';
import { DAY_MS, iso, LATEST_TIME_MS } from '../../lib/time.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { assertOwnKey } from './key-scope.ts';
import { lockKeyRows } from './key-locks.repository.ts';
import { addPendingDays } from './keys-pending.repository.ts';
import { extendKeys } from './keys-bulk.repository.ts';
import * as repo from './keys.repository.ts';
import { toActiveKeyView, toGeneratedKeyView } from './keys-view.ts';

/** The longest an afterRedeem key may run once redeemed, extensions included (about 100 years). */
const MAX_DURATION_DAYS = 36_500;

const lifetime = () => new AppError('LIFETIME_KEY', 'Lifetime keys cannot be extended');

/** New expiry = the later of now and the old expiry, plus `days`; works on active and generated keys. */
export async function extendKey(ctx: AppContext, serviceId: string, key: string, days: number, actor: Actor) {
  const now = ctx.clock();
  await assertOwnKey(ctx.db, serviceId, key, actor);
  // The database adds the days to the expiry as it is when the row is written, so two extensions at once
  // both count; one past the latest time rolls the transaction back.
  const extend = async (trx: Db, table: 'activeKeys' | 'generatedKeys') => {
    const [row] = await extendKeys(trx, serviceId, table, [key], days * DAY_MS, now);
    // The row is locked and was read with an expiry: only a database without the lock could get here.
    if (row?.expiresAt == null) throw notFound('Key');
    const expiresAt = row.expiresAt;
    if (expiresAt > LATEST_TIME_MS) throw invalid('days', `days would take the expiry past ${iso(LATEST_TIME_MS)}`);
    await recordServiceAudit(
      trx,
      actor,
      serviceId,
      'key.extend',
      key,
      { type: table === 'activeKeys' ? 'active' : 'generated', days, expiresAt: iso(expiresAt) },
      now,
    );
    return expiresAt;
  };
  return inTransaction(ctx.db, async (trx) => {
    // Read under the lock: a switch to afterRedeem (or a redemption) made meanwhile is seen, not overwritten.
    await lockKeyRows(trx, serviceId, [key]);
    let active = await repo.findActiveKey(trx, serviceId, key);
    // Bound, its time not started (§23): the days go to its length, unless a validation started it meanwhile.
    const pendingDays = active?.pendingDays == null ? null : await addPendingDays(trx, serviceId, key, days);
    if (pendingDays !== null) {
      if (pendingDays > MAX_DURATION_DAYS) throw invalid('days', `days would make the key run more than ${MAX_DURATION_DAYS} days`);
      await recordServiceAudit(trx, actor, serviceId, 'key.extend', key, { type: 'active', days, durationDays: pendingDays }, now);
      const [withHwids] = await repo.withHwids(trx, [{ ...active!, pendingDays }]);
      return { type: 'active' as const, view: toActiveKeyView(withHwids!, now) };
    }
    if (active?.pendingDays != null) active = await repo.findActiveKey(trx, serviceId, key);
    if (active) {
      if (active.expiresAt === null) throw lifetime();
      const expiresAt = await extend(trx, 'activeKeys');
      const [withHwids] = await repo.withHwids(trx, [{ ...active, expiresAt }]);
      return { type: 'active' as const, view: toActiveKeyView(withHwids!, now) };
    }
    const generated = await repo.findGeneratedKey(trx, serviceId, key);
    if (!generated) throw notFound('Key');
    if (generated.expirationType === 'afterRedeem') {
      // Its time has not started: the days go to the length it will run once redeemed (added by the database, so
      // concurrent extensions add up).
      const durationDays = await repo.addDurationDays(trx, serviceId, key, days);
      if (durationDays > MAX_DURATION_DAYS) throw invalid('days', `days would make the key run more than ${MAX_DURATION_DAYS} days`);
      await recordServiceAudit(trx, actor, serviceId, 'key.extend', key, { type: 'generated', days, durationDays }, now);
      return { type: 'generated' as const, view: toGeneratedKeyView({ ...generated, durationDays }, now) };
    }
    if (generated.expiresAt === null) throw lifetime();
    const expiresAt = await extend(trx, 'generatedKeys');
    return { type: 'generated' as const, view: toGeneratedKeyView({ ...generated, expiresAt }, now) };
  });
}

export async function compensate(ctx: AppContext, serviceId: string, days: number, actor: Actor) {
  const shifted = await inTransaction(ctx.db, async (trx) => {
    await lockKeyRows(trx, serviceId, 'withExpiry');
    const counts = await repo.shiftExpiries(trx, serviceId, days * DAY_MS, LATEST_TIME_MS);
    const details = { days, activeKeysUpdated: counts.active, generatedKeysUpdated: counts.generated };
    await recordServiceAudit(trx, actor, serviceId, 'keys.compensate', null, details, ctx.clock());
    return counts;
  });
  return { activeKeysUpdated: shifted.active, generatedKeysUpdated: shifted.generated };
}
