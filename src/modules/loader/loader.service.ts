import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { luaError } from '../../lua/quote.ts';
import { UUID_PATTERN } from '../../lib/random.ts';
import { executorRefusal, readBlob } from '../scripts/scripts.service.ts';
import { countExecutorRefusal, validateKey, type ClientRun, type Verdict } from '../validation/validation.service.ts';
import { UNKNOWN_EXECUTOR } from '../../lib/executor.ts';
import type { CachedCode, DeliverableScript } from './delivery-cache.ts';
import { lrmGlobalsPrefix } from '../../lua/lrm-globals.ts';
import { findActiveKey } from '../keys/keys.service.ts';

export type Delivery =
  | { kind: 'refused'; status: number; lua: string }
  | {
      kind: 'code';
      /** The blob id: code is immutable under it, so it is a strong validator. */
      etag: string;
      size: number;
      /** X-Script-Version and X-Script-SHA256 (contract §13.2). */
      version: number;
      sha256: string | null;
      /** The whole code from memory, or null for code too large to cache (then `stream`). */
      cached: CachedCode | null;
      stream: () => Readable;
      /** With `globals=1` (contract §16.3): the Lua that sets the LRM_ globals, run before the code. */
      globals?: string;
    };

const NOT_FOUND = { kind: 'refused' as const, status: 404, lua: luaError('SCRIPT_NOT_FOUND', 'No script with this id') };
export const DEFAULT_DISABLED_MESSAGE = 'This script is switched off by its seller for now; try again later';

/** A script that exists, by the id a loadstring carries. */
export async function deliverableScript(ctx: AppContext, scriptId: string) {
  return UUID_PATTERN.test(scriptId) ? ctx.delivery.script(scriptId.toLowerCase()) : undefined;
}

/** The script when it is cached now, or undefined (then `deliverableScript` looks it up). */
export function cachedScript(ctx: AppContext, scriptId: string) {
  return UUID_PATTERN.test(scriptId) ? ctx.delivery.peekScript(scriptId.toLowerCase()) : undefined;
}

/**
 * The verdict for a script's service, or null when the script does not exist. A run on an executor the script's rule
 * excludes is refused before the key is looked at (contract §29).
 */
export async function checkForScript(ctx: AppContext, scriptId: string, input: ClientRun): Promise<Verdict | null> {
  const script = await deliverableScript(ctx, scriptId);
  if (!script) return null;
  const refusal = executorRefused(ctx, script, input.executor);
  if (refusal) return { valid: false, code: 'EXECUTOR_UNSUPPORTED', message: refusal, isPremium: false, expiresAt: null };
  return validateKey(ctx, script.serviceId, input);
}

/**
 * The sentence refusing a run on this executor when the script's rule excludes it (counted then), else null. The
 * executor is the buyer's own claim: this serves honest buyers a clear answer, it locks nobody out.
 */
export function executorRefused(ctx: AppContext, script: DeliverableScript, executor = UNKNOWN_EXECUTOR, count = true): string | null {
  const refusal = executorRefusal(script.executors, executor);
  if (refusal !== null && count) countExecutorRefusal(ctx, script.serviceId, executor);
  return refusal;
}

/**
 * The fetch route: the stored (obfuscated) code for a valid key, counting one execution, or Lua
 * that raises an error naming the code. A script that is not ready is never served, so unobfuscated
 * code cannot leak while the obfuscator runs or after it failed.
 */
export async function deliver(ctx: AppContext, scriptId: string, input: ClientRun, options: { globals?: boolean } = {}): Promise<Delivery> {
  const script = await deliverableScript(ctx, scriptId);
  if (!script) return NOT_FOUND;
  // The kill switch comes before the key check: nothing is bound, validated or counted while it is off.
  if (!script.enabled) {
    return { kind: 'refused', status: 200, lua: luaError('SCRIPT_DISABLED', script.disabledMessage || DEFAULT_DISABLED_MESSAGE) };
  }
  if (script.status !== 'ready' || !script.outputBlob || script.outputSize === null) {
    const code = script.status === 'failed' ? 'SCRIPT_FAILED' : 'SCRIPT_NOT_READY';
    const message =
      script.status === 'failed'
        ? 'The script could not be prepared; its seller must fix it'
        : 'The script is being prepared; try again shortly';
    return { kind: 'refused', status: 200, lua: luaError(code, message) };
  }
  // An executor the script does not run on: refused before the key is looked at, so nothing is bound or spent (§29).
  const refusal = executorRefused(ctx, script, input.executor);
  if (refusal) return { kind: 'refused', status: 200, lua: luaError('EXECUTOR_UNSUPPORTED', refusal) };
  const verdict: Verdict = await validateKey(ctx, script.serviceId, input);
  // A free-for-all script runs for anyone (contract §16.3); a valid key only makes the run premium.
  if (!verdict.valid && !script.ffa) return { kind: 'refused', status: 200, lua: luaError(verdict.code, verdict.message) };
  ctx.executions.count(script.serviceId, verdict.code === 'KEY_VALID' ? input.key : undefined, ctx.clock());
  ctx.analytics.countExecution(script.serviceId, script.id, input.executor);
  const { outputBlob: blobId, outputSize: size } = script;
  return {
    kind: 'code',
    etag: blobId,
    size,
    version: script.version,
    sha256: script.outputSha256,
    cached: await ctx.delivery.code(blobId, size),
    stream: () => Readable.from(readBlob(ctx.db, blobId, size), { objectMode: false }),
    ...(options.globals ? { globals: await globalsFor(ctx, script, verdict, input.key) } : {}),
  };
}

/** The LRM_ globals of this run (contract §16.3), from the verdict and the key's row as it stands. */
async function globalsFor(ctx: AppContext, script: DeliverableScript, verdict: Verdict, key: string | undefined) {
  const keyed = verdict.code === 'KEY_VALID' && key !== undefined;
  const row = keyed ? await findActiveKey(ctx.db, script.serviceId, key) : undefined;
  const expiresAt = verdict.expiresAt === null ? null : Date.parse(verdict.expiresAt);
  return lrmGlobalsPrefix({
    isUserPremium: verdict.valid,
    linkedDiscordId: row?.chatId ?? '',
    secondsLeft: !verdict.valid ? 0 : expiresAt === null ? null : Math.max(0, Math.floor((expiresAt - ctx.clock()) / 1000)),
    // Written in batches: the stored count plus what this instance counted since, this run included.
    totalExecutions: keyed ? (row?.executions ?? 0) + ctx.executions.pendingFor(script.serviceId, key) : 0,
    userNote: row?.note ?? '',
    scriptName: script.name,
    scriptVersion: String(script.version),
  });
}
