import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ObfuscationFailed, providersFrom, type ObfuscatedType, type ObfuscationProvider } from '../../obfuscation/index.ts';
import { collectOutput, deleteBlob, readBlob, scriptChanged, writeBlob } from './code-store.ts';
import * as repo from './scripts.repository.ts';

// A job is held for this long and renewed while it runs; a crashed instance's jobs free up after it.
const LEASE_MS = 60_000;
const SCAN_INTERVAL_MS = 15_000;
const SCAN_BATCH = 20;

/**
 * Runs obfuscation in the background so no request waits for an obfuscator. Jobs live in the
 * database (scripts in status `processing`), so any instance may run them: at start, on every
 * upload and every SCAN_INTERVAL_MS it claims free jobs with a lease. close() aborts running jobs
 * and releases their leases; the script stays `processing` and the next start picks it up again.
 */
export class ScriptWorker {
  readonly providers: Partial<Record<ObfuscatedType, ObfuscationProvider>>;
  private readonly running = new Map<string, AbortController>();
  private readonly pending = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
  ) {
    this.providers = providersFrom(ctx.config.obfuscation);
  }

  start(): void {
    this.kick();
    this.timer = setInterval(() => this.kick(), SCAN_INTERVAL_MS);
    this.timer.unref();
  }

  /** Looks for work now (after an upload or an edit that queued a job). */
  kick(): void {
    if (this.closed) return;
    this.track(this.scan().catch((err: unknown) => this.log.error({ err }, 'script job scan failed')));
  }

  /** Resolves once nothing is running or queued in this instance (tests wait on it). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const controller of this.running.values()) controller.abort(new Error('the app is closing'));
    await this.settled();
  }

  private track(promise: Promise<unknown>): void {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }

  private async scan(): Promise<void> {
    const jobs = await repo.claimableJobs(this.ctx.db, this.ctx.clock(), SCAN_BATCH);
    for (const job of jobs) {
      if (this.closed) return;
      if (!job.jobId || this.running.has(job.id)) continue;
      const now = this.ctx.clock();
      const claimed = await repo.claimJob(this.ctx.db, job.id, job.jobId, now, now + LEASE_MS);
      if (Number(claimed.numUpdatedRows) !== 1) continue;
      this.track(this.run(job.id, job.jobId));
    }
  }

  private async run(scriptId: string, jobId: string): Promise<void> {
    const controller = new AbortController();
    this.running.set(scriptId, controller);
    const renew = setInterval(() => {
      void repo.renewLease(this.ctx.db, scriptId, jobId, this.ctx.clock() + LEASE_MS).catch(() => {});
    }, LEASE_MS / 3);
    renew.unref();
    try {
      const script = await repo.findScript(this.ctx.db, scriptId);
      if (!script || script.jobId !== jobId || script.status !== 'processing') return;
      const provider = this.providers[script.obfuscationType as ObfuscatedType];
      if (!provider) {
        await this.fail(scriptId, jobId, `no ${script.obfuscationType} obfuscator is configured on this server`);
        return;
      }
      const output = await provider.obfuscate(
        { scriptName: script.name, size: script.size, chunks: () => readBlob(this.ctx.db, script.sourceBlob, script.size) },
        controller.signal,
      );
      const blob = await writeBlob(this.ctx.db, collectOutput(output));
      const done = await this.ctx.db.transaction().execute(async (trx) => {
        const result = await repo.finishJob(trx, scriptId, jobId, {
          status: 'ready',
          failureReason: null,
          outputBlob: blob.blobId,
          outputSize: blob.size,
          leaseUntil: null,
          updatedAt: this.ctx.clock(),
        });
        return Number(result.numUpdatedRows) === 1;
      });
      // The script changed (or went away) while the obfuscator ran: this result is stale.
      if (!done) await deleteBlob(this.ctx.db, blob.blobId);
      else await scriptChanged(this.ctx, scriptId);
    } catch (error) {
      if (controller.signal.aborted) {
        await repo.releaseJob(this.ctx.db, scriptId, jobId).catch(() => {});
      } else if (error instanceof ObfuscationFailed) {
        await this.fail(scriptId, jobId, error.message);
      } else {
        this.log.error({ err: error, scriptId }, 'script obfuscation crashed');
        await this.fail(scriptId, jobId, 'the obfuscation failed on the server; try again');
      }
    } finally {
      clearInterval(renew);
      this.running.delete(scriptId);
    }
  }

  private async fail(scriptId: string, jobId: string, reason: string): Promise<void> {
    await repo.finishJob(this.ctx.db, scriptId, jobId, {
      status: 'failed',
      failureReason: reason.slice(0, 2000),
      leaseUntil: null,
      updatedAt: this.ctx.clock(),
    });
    await scriptChanged(this.ctx, scriptId);
  }
}

const workers = new WeakMap<AppContext, ScriptWorker>();

export function attachWorker(ctx: AppContext, worker: ScriptWorker): void {
  workers.set(ctx, worker);
}

/** This app's worker (tests use it to wait for background jobs with settled()). */
export function scriptWorker(ctx: AppContext): ScriptWorker {
  const worker = workers.get(ctx);
  if (!worker) throw new Error('the scripts module is not registered on this app');
  return worker;
}
