import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { AppError, conflict, notFound } from '../../errors.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { iso } from '../../lib/time.ts';
import type { ObfuscatedType } from '../../obfuscation/index.ts';
import { deleteBlob, scriptChanged, writeBlob } from './code-store.ts';
import type { ScriptCode } from './code.ts';
import type { Updateable } from 'kysely';
import { obfuscationJob } from './obfuscation.job.ts';
import * as repo from './scripts.repository.ts';
import type { ObfuscationType, ScriptsTable } from '../../db/schema.ts';
import { addVersion } from './versions.ts';
import { compileRule, ruleFromColumn, ruleToColumn, type ExecutorRule } from './executor-rule.ts';
import { endSessions } from '../sessions/session-ending.service.ts';

export const loadstringFor = (ctx: AppContext, scriptId: string) =>
  `loadstring(game:HttpGet("${ctx.config.baseUrl}/api/v1/vss/loader/${scriptId}"))()`;

/** The line the loader reads the buyer's key from (`script_key`); without it a loadstring answers KEY_INCORRECT. */
export const scriptKeyLine = (key = 'KEY_HERE') => `script_key = "${key}"`;

/** What a buyer pastes: the `script_key` line above the loadstring (contract §15). */
export const buyerSnippet = (loadstring: string, key?: string) => `${scriptKeyLine(key)}\n${loadstring}`;

export function toScriptView(ctx: AppContext, row: repo.ScriptRow) {
  return {
    id: row.id,
    name: row.name,
    obfuscationType: row.obfuscationType,
    visible: row.visible === 1,
    // Shown only when they say something (like failureReason): a record of a running script keeps its
    // part-one shape, so clients that compare records whole are not broken by the kill switch.
    ...(row.enabled === 0 ? { enabled: false } : {}),
    ...(row.disabledMessage !== null ? { disabledMessage: row.disabledMessage } : {}),
    // Luarmor's script options (contract §16.3, §23): always there, as booleans, so a client reads false as false.
    ffa: row.ffa === 1,
    silent: row.silent === 1,
    heartbeat: row.heartbeat === 1,
    executors: ruleFromColumn(row.executors),
    size: row.size,
    status: row.status,
    ...(row.status === 'failed' ? { failureReason: row.failureReason ?? 'unknown' } : {}),
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
    loadstring: loadstringFor(ctx, row.id),
  };
}

function requireProvider(ctx: AppContext, type: ObfuscationType): void {
  if (type !== 'NONE' && !ctx.obfuscators[type as ObfuscatedType]) {
    throw new AppError('OBFUSCATOR_UNAVAILABLE', `The ${type} obfuscator is not configured on this server`);
  }
}

/** The row fields that say what is served: NONE serves the source itself, other types wait for a job. */
function outputFor(type: ObfuscationType, source: { blobId: string; size: number; sha256: string }) {
  const none = { failureReason: null, leaseUntil: null };
  return type === 'NONE'
    ? { status: 'ready' as const, outputBlob: source.blobId, outputSize: source.size, outputSha256: source.sha256, jobId: null, ...none }
    : { status: 'processing' as const, outputBlob: null, outputSize: null, outputSha256: null, jobId: randomUUID(), ...none };
}

export interface CreateInput {
  name: string;
  code: ScriptCode;
  obfuscationType?: ObfuscationType;
  visible?: boolean;
  enabled?: boolean;
  disabledMessage?: string | null;
  /** Free for all: runs without a key (contract §16.3). */
  ffa?: boolean;
  /** The loader prints nothing to the console. */
  silent?: boolean;
  heartbeat?: boolean;
  /** Which executors it runs on (contract §29); absent or null: any. */
  executors?: ExecutorRule;
}

export async function createScript(ctx: AppContext, serviceId: string, input: CreateInput, actor: Actor) {
  const type = input.obfuscationType ?? 'NONE';
  requireProvider(ctx, type);
  // Checked before the code is written, so a duplicate costs no 40 MB of writes; the unique key still settles races.
  if (await repo.nameTaken(ctx.db, serviceId, input.name)) throw conflict(`A script named ${input.name} already exists`);
  const now = ctx.clock();
  const id = randomUUID();
  let row: repo.ScriptRow | undefined;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const source = await writeBlob(trx, input.code);
      row = {
        id,
        serviceId,
        name: input.name,
        obfuscationType: type,
        visible: input.visible === false ? 0 : 1,
        sourceBlob: source.blobId,
        size: source.size,
        ...outputFor(type, source),
        createdAt: now,
        updatedAt: now,
        enabled: input.enabled === false ? 0 : 1,
        disabledMessage: input.disabledMessage || null,
        heartbeat: input.heartbeat === true ? 1 : 0,
        currentVersion: 1,
        ffa: input.ffa === true ? 1 : 0,
        silent: input.silent === true ? 1 : 0,
        executors: ruleToColumn(input.executors ?? null),
      };
      await repo.insertScript(trx, row);
      await addVersion(trx, id, source, now);
      const details = {
        name: input.name,
        obfuscationType: type,
        visible: row.visible === 1,
        enabled: row.enabled === 1,
        ...(row.ffa === 1 ? { ffa: true } : {}),
        ...(row.silent === 1 ? { silent: true } : {}),
        ...(row.executors !== null ? { executors: ruleFromColumn(row.executors) } : {}),
        size: source.size,
        version: 1,
      };
      await recordServiceAudit(trx, actor, serviceId, 'script.create', id, details, now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A script named ${input.name} already exists`);
    throw error;
  }
  if (row!.status === 'processing') ctx.jobs.kick(obfuscationJob.name);
  return toScriptView(ctx, row!);
}

export async function listScripts(ctx: AppContext, serviceId: string, page: PageRequest, search?: string) {
  const { items, total } = await repo.pageScripts(ctx.db, serviceId, { search, offset: page.offset, limit: page.limit });
  return pageOf(
    items.map((row) => toScriptView(ctx, row)),
    total,
    page,
  );
}

async function requireScript(ctx: AppContext, serviceId: string, idOrName: string) {
  const row = await repo.findServiceScript(ctx.db, serviceId, idOrName);
  if (!row) throw notFound('Script');
  return row;
}

export async function scriptLoadstring(ctx: AppContext, serviceId: string, idOrName: string) {
  const row = await requireScript(ctx, serviceId, idOrName);
  return { loadstring: loadstringFor(ctx, row.id) };
}

export interface UpdateInput {
  name?: string;
  code?: ScriptCode;
  obfuscationType?: ObfuscationType;
  visible?: boolean;
  enabled?: boolean;
  disabledMessage?: string | null;
  ffa?: boolean;
  silent?: boolean;
  heartbeat?: boolean;
  executors?: ExecutorRule;
}

export async function updateScript(ctx: AppContext, serviceId: string, idOrName: string, input: UpdateInput, actor: Actor) {
  const current = await requireScript(ctx, serviceId, idOrName);
  const type = input.obfuscationType ?? current.obfuscationType;
  // Re-run when the code or the type changes, or when a failed script is sent its type again (a retry).
  const rerun =
    input.code !== undefined || type !== current.obfuscationType || (input.obfuscationType !== undefined && current.status === 'failed');
  if (rerun) requireProvider(ctx, type);
  if (input.name !== undefined && input.name !== current.name && (await repo.nameTaken(ctx.db, serviceId, input.name))) {
    throw conflict(`A script named ${input.name} already exists`);
  }
  const now = ctx.clock();
  const patch: Updateable<ScriptsTable> = { updatedAt: now };
  if (input.name !== undefined) patch.name = input.name;
  if (input.visible !== undefined) patch.visible = input.visible ? 1 : 0;
  if (input.enabled !== undefined) patch.enabled = input.enabled ? 1 : 0;
  if (input.disabledMessage !== undefined) patch.disabledMessage = input.disabledMessage;
  if (input.ffa !== undefined) patch.ffa = input.ffa ? 1 : 0;
  if (input.silent !== undefined) patch.silent = input.silent ? 1 : 0;
  // The message is what clients see while the script is off (contract §13.3): switched back on, it has none.
  if (input.enabled === true) patch.disabledMessage = null;
  if (input.heartbeat !== undefined) patch.heartbeat = input.heartbeat ? 1 : 0;
  if (input.executors !== undefined) patch.executors = ruleToColumn(input.executors);
  const garbage: string[] = [];
  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (rerun) {
        // The old source blob stays: it is a kept version (pruned with it, see versions.ts).
        let source: { blobId: string; size: number; sha256: string };
        if (input.code) {
          await repo.touchScript(trx, current.id, now);
          source = await writeBlob(trx, input.code);
          patch.currentVersion = await addVersion(trx, current.id, source, now);
        } else {
          const kept = await repo.findVersion(trx, current.id, current.currentVersion);
          source = { blobId: current.sourceBlob, size: current.size, sha256: kept?.sha256 ?? '' };
        }
        Object.assign(patch, { obfuscationType: type, sourceBlob: source.blobId, size: source.size, ...outputFor(type, source) });
        if (current.outputBlob && current.outputBlob !== current.sourceBlob) garbage.push(current.outputBlob);
      }
      await repo.updateScript(trx, current.id, patch);
      for (const blobId of garbage) await deleteBlob(trx, blobId);
      // The code itself never goes in the log: only that it changed, and its size. Only what changed is listed
      // (contract §22), and the script is named by its name.
      const details: Record<string, unknown> = { name: patch.name ?? current.name };
      if (patch.name !== undefined && patch.name !== current.name) details.previousName = current.name;
      if (input.obfuscationType !== undefined && input.obfuscationType !== current.obfuscationType) details.obfuscationType = type;
      if (patch.visible !== undefined && patch.visible !== current.visible) details.visible = input.visible;
      if (patch.enabled !== undefined && patch.enabled !== current.enabled) details.enabled = input.enabled;
      if (patch.disabledMessage !== undefined && patch.disabledMessage !== current.disabledMessage) {
        details.disabledMessage = patch.disabledMessage;
      }
      if (input.code !== undefined) Object.assign(details, { codeChanged: true, size: patch.size, version: patch.currentVersion });
      if (patch.ffa !== undefined && patch.ffa !== current.ffa) details.ffa = input.ffa;
      if (patch.silent !== undefined && patch.silent !== current.silent) details.silent = input.silent;
      if (patch.heartbeat !== undefined && patch.heartbeat !== current.heartbeat) details.heartbeat = input.heartbeat;
      if (patch.executors !== undefined && patch.executors !== current.executors) details.executors = ruleFromColumn(patch.executors);
      await recordServiceAudit(trx, actor, serviceId, 'script.update', current.id, details, now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A script named ${input.name} already exists`);
    throw error;
  }
  await scriptChanged(ctx, current.id);
  // A switched-off script stops running now, not at its next launch (contract §18).
  if (input.enabled === false) await endSessions(ctx, serviceId, { scriptId: current.id }, 'SCRIPT_DISABLED');
  if (patch.status === 'processing') ctx.jobs.kick(obfuscationJob.name);
  return toScriptView(ctx, { ...current, ...patch } as repo.ScriptRow);
}

export async function deleteScript(ctx: AppContext, serviceId: string, idOrName: string, actor: Actor) {
  const current = await requireScript(ctx, serviceId, idOrName);
  await ctx.db.transaction().execute(async (trx) => {
    // Every kept version's blob goes too (the current source is one of them).
    const blobs = new Set([current.sourceBlob, ...(await repo.allVersionBlobs(trx, current.id)).map((v) => v.blobId)]);
    await repo.deleteScript(trx, current.id);
    for (const blobId of blobs) await deleteBlob(trx, blobId);
    if (current.outputBlob && current.outputBlob !== current.sourceBlob) await deleteBlob(trx, current.outputBlob);
    await recordServiceAudit(trx, actor, serviceId, 'script.delete', current.id, { name: current.name }, ctx.clock());
  });
  await scriptChanged(ctx, current.id);
  await endSessions(ctx, serviceId, { scriptId: current.id }, 'SCRIPT_DISABLED');
}

/** Every script of the service as stored rows, newest first (the Luarmor-compatible API's project details, §16.2). */
export async function allScripts(ctx: AppContext, serviceId: string) {
  return (await repo.pageScripts(ctx.db, serviceId, { offset: 0, limit: 10_000 })).items;
}

export async function visibleLoadstrings(ctx: AppContext, serviceId: string) {
  const rows = await repo.visibleScripts(ctx.db, serviceId);
  return rows.map((row) => ({ id: row.id, name: row.name, loadstring: loadstringFor(ctx, row.id) }));
}

/**
 * For the loader, which serves scripts: a script's record by id, its stored code (readBlob) and the invalidation
 * topic a change to either publishes on (SCRIPT_TOPIC).
 */
export { findScript } from './scripts.repository.ts';
export { readBlob, SCRIPT_TOPIC } from './code-store.ts';
/** Script code as the upload routes hold it, for a module that takes code in its own body shape (the Luarmor API). */
export { CODE_LIMIT_BYTES, ScriptCode } from './code.ts';

/** GET /vss/api/scripts/:idOrSlug/versions: the kept versions, newest first. */
export async function listVersions(ctx: AppContext, serviceId: string, idOrName: string) {
  const script = await requireScript(ctx, serviceId, idOrName);
  const rows = await repo.listVersions(ctx.db, script.id);
  return {
    items: rows.map((row) => ({
      version: row.version,
      sha256: row.sha256,
      size: Number(row.size),
      createdAt: iso(row.createdAt)!,
      current: row.version === script.currentVersion,
    })),
  };
}

/**
 * Makes a kept version the script's code again, at once on every instance (the row change is published,
 * and the ETag is the blob id, so clients holding the newer code fetch the restored one). An obfuscated
 * script runs its obfuscator again on the restored source.
 */
export async function restoreVersion(ctx: AppContext, serviceId: string, idOrName: string, version: number, actor: Actor) {
  const found = await requireScript(ctx, serviceId, idOrName);
  requireProvider(ctx, found.obfuscationType);
  const now = ctx.clock();
  const row = await ctx.db.transaction().execute(async (trx) => {
    await repo.touchScript(trx, found.id, now);
    // Read again under the lock: an upload may have pruned the version or replaced the output meanwhile.
    const current = await repo.findScript(trx, found.id);
    const target = current && (await repo.findVersion(trx, current.id, version));
    if (!current) throw notFound('Script');
    if (!target) throw notFound(`Version ${version} of this script (it never existed or is older than the last 20)`);
    const source = { blobId: target.blobId, size: Number(target.size), sha256: target.sha256 };
    const patch: Updateable<ScriptsTable> = {
      sourceBlob: source.blobId,
      size: source.size,
      currentVersion: version,
      updatedAt: now,
      ...outputFor(current.obfuscationType, source),
    };
    await repo.updateScript(trx, current.id, patch);
    if (current.outputBlob && current.outputBlob !== current.sourceBlob) await deleteBlob(trx, current.outputBlob);
    const details = { name: current.name, version, previousVersion: current.currentVersion, sha256: target.sha256 };
    await recordServiceAudit(trx, actor, serviceId, 'script.restore', current.id, details, now);
    return { ...current, ...patch } as repo.ScriptRow;
  });
  await scriptChanged(ctx, row.id);
  if (row.status === 'processing') ctx.jobs.kick(obfuscationJob.name);
  return toScriptView(ctx, row);
}

/** A script's executor rule as the delivery path uses it (contract §29): compiled once per cached row. */
export const compileExecutorRule = (column: string | null) => compileRule(ruleFromColumn(column));
export { executorRefusal, type CompiledRule as CompiledExecutorRule } from './executor-rule.ts';
