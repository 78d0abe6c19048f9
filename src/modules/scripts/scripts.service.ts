import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { recordServiceAudit, type Actor } from '../audit/audit.repository.ts';
import { AppError, conflict, notFound } from '../../errors.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { pageOf, type PageRequest } from '../../lib/pagination.ts';
import { iso } from '../../lib/time.ts';
import type { ObfuscatedType } from '../../obfuscation/index.ts';
import { deleteBlob, scriptChanged, writeBlob } from './code-store.ts';
import type { ScriptCode } from './code.ts';
import { obfuscationJob } from './obfuscation.job.ts';
import * as repo from './scripts.repository.ts';
import type { ObfuscationType, ScriptsTable } from './scripts.tables.ts';

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
function outputFor(type: ObfuscationType, source: { blobId: string; size: number }) {
  return type === 'NONE'
    ? { status: 'ready' as const, outputBlob: source.blobId, outputSize: source.size, jobId: null, failureReason: null, leaseUntil: null }
    : { status: 'processing' as const, outputBlob: null, outputSize: null, jobId: randomUUID(), failureReason: null, leaseUntil: null };
}

export interface CreateInput {
  name: string;
  code: ScriptCode;
  obfuscationType?: ObfuscationType;
  visible?: boolean;
}

export async function createScript(ctx: AppContext, serviceId: string, input: CreateInput, actor: Actor) {
  const type = input.obfuscationType ?? 'NONE';
  requireProvider(ctx, type);
  // Checked before the code is written, so a duplicate costs no 40 MB of writes; the unique key still settles races.
  if (await repo.nameTaken(ctx.db, serviceId, input.name)) throw conflict(`A script named ${input.name} already exists`);
  const now = ctx.clock();
  const id = randomUUID();
  let row: ScriptsTable | undefined;
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
      };
      await repo.insertScript(trx, row);
      const details = { name: input.name, obfuscationType: type, visible: row.visible === 1, size: source.size };
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
  const patch: Partial<ScriptsTable> = { updatedAt: now };
  if (input.name !== undefined) patch.name = input.name;
  if (input.visible !== undefined) patch.visible = input.visible ? 1 : 0;
  const garbage: string[] = [];
  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (rerun) {
        const source = input.code ? await writeBlob(trx, input.code) : { blobId: current.sourceBlob, size: current.size };
        Object.assign(patch, { obfuscationType: type, sourceBlob: source.blobId, size: source.size, ...outputFor(type, source) });
        if (input.code) garbage.push(current.sourceBlob);
        if (current.outputBlob && current.outputBlob !== current.sourceBlob) garbage.push(current.outputBlob);
      }
      await repo.updateScript(trx, current.id, patch);
      for (const blobId of garbage) await deleteBlob(trx, blobId);
      // The code itself never goes in the log: only that it changed, and its size.
      const details = {
        name: input.name,
        obfuscationType: input.obfuscationType,
        visible: input.visible,
        codeChanged: input.code !== undefined,
        size: patch.size,
      };
      await recordServiceAudit(trx, actor, serviceId, 'script.update', current.id, details, now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A script named ${input.name} already exists`);
    throw error;
  }
  await scriptChanged(ctx, current.id);
  if (patch.status === 'processing') ctx.jobs.kick(obfuscationJob.name);
  return toScriptView(ctx, { ...current, ...patch });
}

export async function deleteScript(ctx: AppContext, serviceId: string, idOrName: string, actor: Actor) {
  const current = await requireScript(ctx, serviceId, idOrName);
  await ctx.db.transaction().execute(async (trx) => {
    await repo.deleteScript(trx, current.id);
    await deleteBlob(trx, current.sourceBlob);
    if (current.outputBlob && current.outputBlob !== current.sourceBlob) await deleteBlob(trx, current.outputBlob);
    await recordServiceAudit(trx, actor, serviceId, 'script.delete', current.id, { name: current.name }, ctx.clock());
  });
  await scriptChanged(ctx, current.id);
}

export async function visibleLoadstrings(ctx: AppContext, serviceId: string) {
  const rows = await repo.visibleScripts(ctx.db, serviceId);
  return rows.map((row) => ({ id: row.id, name: row.name, loadstring: loadstringFor(ctx, row.id) }));
}
