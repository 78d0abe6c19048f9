import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { AppContext, Log } from '../../src/context.ts';
import { createContext } from '../../src/modules/state.ts';
import { JobRunner, type Job } from '../../src/jobs/runner.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { TEST_SECRET, TestClock } from '../helpers/app.ts';

/** A promise with its resolver outside, so a test decides when a pass ends (no sleeps). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

class RecordingLog implements Log {
  errors: unknown[] = [];
  info() {}
  warn() {}
  error(obj: unknown) {
    this.errors.push(obj);
  }
}

let database: TestDatabase;
let ctx: AppContext;
const clock = new TestClock();

beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({ KEYWARD_SECRET: TEST_SECRET, ...database.env });
  ctx = await createContext({
    config,
    database: database.handle,
    ownsDatabase: false,
    log: new RecordingLog(),
    clock: clock.read,
    role: 'cli',
  });
});

afterAll(async () => {
  await ctx.close();
  await database.drop();
});

const off = 0;

describe('background jobs', () => {
  it('runs a kicked pass once more after the one under way instead of beside it, and settles after both', async () => {
    const first = gate();
    let passes = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const job: Job = {
      name: 'serial',
      intervalMs: off,
      async run() {
        passes += 1;
        concurrent += 1;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (passes === 1) await first.opened;
        concurrent -= 1;
      },
    };
    const runner = new JobRunner(ctx, new RecordingLog(), [job]);
    runner.kick('serial');
    runner.kick('serial');
    runner.kick('serial');
    expect(passes).toBe(1);
    first.open();
    await runner.settled();
    // Three kicks while one pass ran are one more pass, never two at once.
    expect(passes).toBe(2);
    expect(maxConcurrent).toBe(1);
    await runner.stop();
  });

  it('lets an overlapping job start a pass while another runs', async () => {
    const release = gate();
    let running = 0;
    let maxRunning = 0;
    const job: Job = {
      name: 'overlapping',
      intervalMs: off,
      overlap: true,
      async run() {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await release.opened;
        running -= 1;
      },
    };
    const runner = new JobRunner(ctx, new RecordingLog(), [job]);
    runner.kick('overlapping');
    runner.kick('overlapping');
    release.open();
    await runner.settled();
    expect(maxRunning).toBe(2);
    await runner.stop();
  });

  it('runs an exclusive job on one instance of the database at a time, and hands it over when that one stops', async () => {
    const ran: string[] = [];
    const job: Job = {
      name: `exclusive-${Math.random().toString(36).slice(2)}`,
      intervalMs: 3_600_000,
      exclusive: true,
      async run() {
        ran.push('pass');
      },
    };
    const a = new JobRunner(ctx, new RecordingLog(), [job]);
    const b = new JobRunner(ctx, new RecordingLog(), [job]);
    a.kick(job.name);
    await a.settled();
    b.kick(job.name);
    await b.settled();
    // b found a's lease: one pass in the whole deployment.
    expect(ran).toHaveLength(1);
    const lease = await ctx.db.selectFrom('jobLeases').selectAll().where('name', '=', job.name).executeTakeFirstOrThrow();
    expect(lease.holder).toBe(a.holder);
    expect(lease.leaseUntil).toBe(clock.now + 3_600_000);

    // The holder renews its own lease.
    a.kick(job.name);
    await a.settled();
    expect(ran).toHaveLength(2);

    // A stopped holder gives the lease up: the other instance takes over at once.
    await a.stop();
    b.kick(job.name);
    await b.settled();
    expect(ran).toHaveLength(3);
    expect((await ctx.db.selectFrom('jobLeases').select('holder').where('name', '=', job.name).executeTakeFirstOrThrow()).holder).toBe(
      b.holder,
    );
    await b.stop();
  });

  it('takes over an exclusive job whose holder died once its lease has run out', async () => {
    let passes = 0;
    const job: Job = {
      name: `crashed-${Math.random().toString(36).slice(2)}`,
      intervalMs: 120_000,
      exclusive: true,
      run: async () => void (passes += 1),
    };
    const dead = new JobRunner(ctx, new RecordingLog(), [job]);
    const alive = new JobRunner(ctx, new RecordingLog(), [job]);
    dead.kick(job.name);
    await dead.settled();
    alive.kick(job.name);
    await alive.settled();
    expect(passes).toBe(1);
    clock.advance(120_000);
    alive.kick(job.name);
    await alive.settled();
    expect(passes).toBe(2);
    await alive.stop();
  });

  it('logs a failed pass with the job name and keeps running it', async () => {
    const log = new RecordingLog();
    let passes = 0;
    const job: Job = {
      name: 'failing',
      intervalMs: off,
      async run() {
        passes += 1;
        if (passes === 1) throw new Error('the database went away');
      },
    };
    const runner = new JobRunner(ctx, log, [job]);
    runner.kick('failing');
    await runner.settled();
    runner.kick('failing');
    await runner.settled();
    expect(passes).toBe(2);
    expect(log.errors).toHaveLength(1);
    expect(log.errors[0]).toMatchObject({ job: 'failing', err: { message: 'the database went away' } });
    await runner.stop();
  });

  it('on stop aborts the pass under way, waits for it, runs onStop after it, and starts nothing more', async () => {
    const events: string[] = [];
    const job: Job = {
      name: 'stoppable',
      intervalMs: off,
      async run(_ctx, signal) {
        events.push('run');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        events.push('aborted');
      },
      async onStop() {
        events.push('onStop');
      },
    };
    const log = new RecordingLog();
    const runner = new JobRunner(ctx, log, [job]);
    runner.kick('stoppable');
    await runner.stop();
    expect(events).toEqual(['run', 'aborted', 'onStop']);
    runner.kick('stoppable');
    await runner.settled();
    expect(events).toEqual(['run', 'aborted', 'onStop']);
    // An aborted pass is not a failure.
    expect(log.errors).toEqual([]);
  });

  it('refuses two jobs with one name and a kick of an unknown job', () => {
    const job: Job = { name: 'twice', intervalMs: off, run: async () => {} };
    expect(() => new JobRunner(ctx, new RecordingLog(), [job, job])).toThrow(/two background jobs are named twice/);
    expect(() => new JobRunner(ctx, new RecordingLog(), [job]).kick('nope')).toThrow(/no background job is named nope/);
  });
});
