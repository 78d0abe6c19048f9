import type { AppContext } from '../../context.ts';
import type { Job } from '../../jobs/runner.ts';
import { ObfuscationFailed, type ObfuscatedType } from '../../obfuscation/index.ts';
import { collectOutput, deleteBlob, readBlob, scriptChanged, writeBlob } from './code-store.ts';
import * as repo from './scripts.repository.ts';

// A job is held for this long and renewed while it runs; a crashed instance's jobs free up after it.
const LEASE_MS = 60_000;
const SCAN_BATCH = 20;

/**
 * Runs obfuscation in the background so no request waits for an obfuscator. Jobs live in the database
 * (scripts in status `processing`), so any instance may run them: each pass (at start, after every upload
 * or edit that queued a job, and on the interval) claims free jobs with a lease and runs them. Passes
 * overlap, so a new upload does not wait for a long obfuscation; the claim keeps them apart. When the app
 * stops, running jobs are aborted and their leases released: the script stays `processing` and the next
 * start picks it up again.
 */
export const obfuscationJob: Job = {
  name: 'obfuscation',
  intervalMs: 15_000,
  overlap: true,
  async run(ctx, signal) {
    const claimed: Promise<void>[] = [];
    for (const job of await repo.claimableJobs(ctx.db, ctx.clock(), SCAN_BATCH)) {
      if (signal.aborted) break;
      if (!job.jobId) continue;
      const now = ctx.clock();
      const claim = await repo.claimJob(ctx.db, job.id, job.jobId, now, now + LEASE_MS);
      if (Number(claim.numUpdatedRows) === 1) claimed.push(runJob(ctx, job.id, job.jobId, signal));
    }
    await Promise.all(claimed);
  },
};

async function runJob(ctx: AppContext, scriptId: string, jobId: string, signal: AbortSignal): Promise<void> {
  const renew = setInterval(() => {
    void repo.renewLease(ctx.db, scriptId, jobId, ctx.clock() + LEASE_MS).catch(() => {});
  }, LEASE_MS / 3);
  renew.unref();
  try {
    const script = await repo.findScript(ctx.db, scriptId);
    if (!script || script.jobId !== jobId || script.status !== 'processing') return;
    const provider = ctx.obfuscators[script.obfuscationType as ObfuscatedType];
    if (!provider) {
      await fail(ctx, scriptId, jobId, `no ${script.obfuscationType} obfuscator is configured on this server`);
      return;
    }
    const output = await provider.obfuscate(
      { scriptName: script.name, size: script.size, chunks: () => readBlob(ctx.db, script.sourceBlob, script.size) },
      signal,
    );
    const blob = await writeBlob(ctx.db, collectOutput(output));
    const done = await ctx.db.transaction().execute(async (trx) => {
      const result = await repo.finishJob(trx, scriptId, jobId, {
        status: 'ready',
        failureReason: null,
        outputBlob: blob.blobId,
        outputSize: blob.size,
        outputSha256: blob.sha256,
        leaseUntil: null,
        updatedAt: ctx.clock(),
      });
      return Number(result.numUpdatedRows) === 1;
    });
    // The script changed (or went away) while the obfuscator ran: this result is stale.
    if (!done) await deleteBlob(ctx.db, blob.blobId);
    else await scriptChanged(ctx, scriptId);
  } catch (error) {
    if (signal.aborted) {
      await repo.releaseJob(ctx.db, scriptId, jobId).catch(() => {});
    } else if (error instanceof ObfuscationFailed) {
      await fail(ctx, scriptId, jobId, error.message);
    } else {
      ctx.log.error({ err: error, scriptId }, 'script obfuscation crashed');
      await fail(ctx, scriptId, jobId, 'the obfuscation failed on the server; try again');
    }
  } finally {
    clearInterval(renew);
  }
}

async function fail(ctx: AppContext, scriptId: string, jobId: string, reason: string): Promise<void> {
  await repo.finishJob(ctx.db, scriptId, jobId, {
    status: 'failed',
    failureReason: reason.slice(0, 2000),
    leaseUntil: null,
    updatedAt: ctx.clock(),
  });
  await scriptChanged(ctx, scriptId);
}
