// Importing keys (contract §7.4): the records are read and checked (keys-import.ts), then written all or nothing.
import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/database.ts';
import type { ActiveKeysTable, GeneratedKeysTable } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import * as repo from './keys-import.repository.ts';
import { parseImportOffThread } from './import-workers.ts';
import type { ImportInput } from './keys-import.ts';

export interface ImportProgress {
  (done: number, total: number): void;
}

/** All or nothing: every record checked, duplicates settled, then one transaction with its audit entry. */
export async function importKeys(
  ctx: AppContext,
  actor: Actor,
  service: { id: string; accountId: string },
  input: ImportInput,
  progress?: ImportProgress,
) {
  const serviceId = service.id;
  const parsed = await parseImportOffThread(input);
  const now = ctx.clock();
  const run = async (trx: typeof ctx.db) => {
    const existing = await repo.existingKeys(
      trx,
      parsed.map((k) => k.key),
    );
    if (existing.size > 0 && input.onDuplicate !== 'skip') {
      const duplicates = parsed.filter((k) => existing.has(k.key)).map((k) => k.key);
      throw new AppError('CONFLICT', `${duplicates.length} key(s) already exist; nothing was imported`, { duplicates });
    }
    const fresh = parsed.filter((k) => !existing.has(k.key));
    const active: Insertable<ActiveKeysTable>[] = [];
    const generated: Insertable<GeneratedKeysTable>[] = [];
    const hwids: Array<{ key: string; serviceId: string; hwid: string; position: number }> = [];
    for (const k of fresh) {
      const shared = {
        key: k.key,
        serviceId: serviceId,
        note: k.note,
        isPremium: k.isPremium ? (1 as const) : (0 as const),
        noHwidValidation: k.noHwidValidation ? (1 as const) : (0 as const),
        status: k.status,
        expiresAt: k.expiresAt,
        chatId: k.chatId,
        createdAt: k.createdAt ?? now,
        maxHwids: k.maxHwids,
        banReason: k.banReason ?? null,
        banExpiresAt: k.banExpiresAt ?? null,
        maxSessions: k.maxSessions,
      };
      if (k.active) {
        active.push({
          ...shared,
          hwid: k.hwids[0] ?? null,
          hwidCount: k.hwids.length,
          executions: k.executions,
          activatedAt: k.activatedAt ?? k.createdAt ?? now,
          lastUsedAt: k.lastUsedAt,
          hwidResetAt: k.hwidResetAt,
          hwidResetCount: k.hwidResetCount,
          // Bound before its first use (contract §23): its time starts at its first validation.
          pendingDays: k.durationDays,
        });
        k.hwids.forEach((hwid, i) => hwids.push({ key: k.key, serviceId: serviceId, hwid, position: i + 1 }));
      } else {
        const expirationType = k.durationDays !== null ? 'afterRedeem' : k.expiresAt === null ? 'lifetime' : (k.expirationType ?? 'byDate');
        generated.push({ ...shared, expirationType, durationDays: k.durationDays });
      }
    }
    await repo.insertImported(trx, active, hwids, generated, progress);
    // Executions a key ran before it came here are part of the service's all-time total (the Analytics page's).
    await repo.addImportedExecutions(
      trx,
      serviceId,
      active.reduce((sum, k) => sum + (k.executions ?? 0), 0),
    );
    const result = { imported: { active: active.length, generated: generated.length }, skipped: existing.size };
    await recordServiceAudit(trx, actor, service, 'keys.import', null, { format: input.format, ...result }, now);
    // Which keys were skipped, for a caller that answers them (the Luarmor API's import, contract §23).
    return { ...result, skippedKeys: parsed.filter((k) => existing.has(k.key)).map((k) => k.key) };
  };
  // Another import committing some of these keys between our check and our insert breaks a unique index:
  // run again, and the check then sees them (409, or skipped when asked).
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(run);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === 3) throw error;
    }
  }
}

export type { ImportFormat } from './keys-import.ts';
/** Export for the CLI, which writes a file in its own process (the server runs exports in worker threads). */
export { exportChunks, exportFileName, exportKeys } from './keys-export.ts';
