import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { releaseLease, takeLease } from './leases.repository.ts';

/**
 * Background work of one kind. `run` does one pass and returns; the runner calls it every `intervalMs`
 * (0 turns the job off), and at once when something asks for it (`kick`).
 */
export interface Job {
  name: string;
  intervalMs: number | ((ctx: AppContext) => number);
  /**
   * One instance across every instance on the database: a pass runs only under the job's lease in
   * `job_leases`, held for an interval and renewed by its holder's next pass, so the job runs about once
   * per interval in the whole deployment and another instance takes over when the holder stops or dies.
   * For passes that would only repeat each other's work (pruning, sweeping).
   */
  exclusive?: boolean;
  /**
   * A kick starts a pass even while one runs (the pass itself must keep apart the work it claims). For jobs
   * whose passes are long, so that new work does not wait for old.
   */
  overlap?: boolean;
  /** One pass. `signal` aborts when the app stops; a pass should then give its claims back and return. */
  run(ctx: AppContext, signal: AbortSignal): Promise<void>;
  /** After the last pass, when the app stops (a final flush). */
  onStop?(ctx: AppContext): Promise<void>;
}

type Log = { warn(obj: unknown, msg: string): void; error(obj: unknown, msg: string): void };

// An exclusive job's lease lasts its interval, and at least this long (a pass must fit in it).
const MIN_LEASE_MS = 60_000;

interface JobState {
  job: Job;
  intervalMs: number;
  timer: NodeJS.Timeout | null;
  inFlight: Set<Promise<void>>;
  /** A kick arrived while a non-overlapping pass ran: run again once it ends. */
  again: boolean;
}

/**
 * Runs the app's background jobs on this instance: each on its interval, passes of one job never
 * overlapping (unless it says so), leases for exclusive ones, a failed pass logged and retried on the next
 * tick. stop() aborts and waits for passes under way, then runs each job's onStop.
 */
export class JobRunner {
  /** Names this instance in job leases. */
  readonly holder = randomUUID();
  private readonly states = new Map<string, JobState>();
  private readonly controller = new AbortController();
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Log,
    jobs: readonly Job[],
  ) {
    for (const job of jobs) {
      if (this.states.has(job.name)) throw new Error(`two background jobs are named ${job.name}`);
      const intervalMs = typeof job.intervalMs === 'function' ? job.intervalMs(ctx) : job.intervalMs;
      this.states.set(job.name, { job, intervalMs, timer: null, inFlight: new Set(), again: false });
    }
  }

  /** Starts every enabled job's timer and runs each once now. */
  start(): void {
    if (this.stopping) return;
    for (const state of this.states.values()) {
      if (state.intervalMs <= 0) continue;
      state.timer = setInterval(() => this.tick(state), state.intervalMs);
      state.timer.unref();
      this.tick(state);
    }
  }

  /** Runs a job now (new work was queued), whether or not its timer runs. Ignored once stopping. */
  kick(name: string): void {
    const state = this.states.get(name);
    if (!state) throw new Error(`no background job is named ${name}`);
    this.tick(state);
  }

  /** Resolves once no pass runs or waits to run on this instance (tests wait on it instead of sleeping). */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.states.values()].flatMap((s) => [...s.inFlight]);
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /**
   * Stops the timers, aborts passes under way and waits for them, gives up this instance's leases (another
   * instance takes the jobs over at its next tick), then runs each job's onStop once.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const state of this.states.values()) if (state.timer) clearInterval(state.timer);
      this.controller.abort(new Error('the app is stopping'));
      await this.settled();
      for (const { job } of this.states.values()) {
        const stopped = async () => {
          if (job.exclusive) await releaseLease(this.ctx.db, job.name, this.holder);
          await job.onStop?.(this.ctx);
        };
        await stopped().catch((err: unknown) => this.log.error({ err, job: job.name }, 'background job failed to stop cleanly'));
      }
    })();
    return this.stopping;
  }

  private tick(state: JobState): void {
    if (this.stopping) return;
    if (state.inFlight.size > 0 && !state.job.overlap) {
      state.again = true;
      return;
    }
    const pass = this.pass(state.job, state.intervalMs).finally(() => {
      state.inFlight.delete(pass);
      if (state.again && !this.stopping) {
        state.again = false;
        this.tick(state);
      }
    });
    state.inFlight.add(pass);
  }

  private async pass(job: Job, intervalMs: number): Promise<void> {
    const signal = this.controller.signal;
    try {
      if (!job.exclusive) return await job.run(this.ctx, signal);
      const now = this.ctx.clock();
      if (await takeLease(this.ctx.db, job.name, this.holder, now, now + Math.max(MIN_LEASE_MS, intervalMs)))
        await job.run(this.ctx, signal);
    } catch (err) {
      if (!signal.aborted) this.log.error({ err, job: job.name }, 'background job failed');
    }
  }
}
