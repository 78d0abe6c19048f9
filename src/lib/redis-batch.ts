import type { Redis } from 'ioredis';

type Arg = string | number;

interface Waiting {
  op: number;
  args: Arg[];
  resolve: (reply: never) => void;
  reject: (err: unknown) => void;
  /** The gate it waits behind (RedisBatch.behind), sent in the same call before it. */
  gate: Waiting | null;
  /** Its place in the call it travels in (1-based), set as the call is built. */
  position: number;
  /** A shared op's item: what its callers found it by while it waited (RedisBatch.define). */
  shareId?: string;
  /** A gate's answer, where asked for (RedisBatch.admission), and what settles it: null where the gate opened. */
  admission?: { promise: Promise<void>; settle: (shutBy: unknown) => void };
}

/** One kind of item of the shared batch: a Lua function of the item's arguments, answering that item's reply. */
export interface BatchedOp {
  /** Names the op in errors. */
  name: string;
  /** The Lua function's parameters, one per argument of an item. */
  params: string[];
  /** The function's body; it may use `redis.call` and must `return` the item's reply. */
  lua: string;
  /**
   * For an op that can be a gate (RedisBatch.behind): a Lua expression of `reply` and the params, true when the items
   * held behind the item may run.
   */
  opens?: string;
  /**
   * A read that changes nothing: while an item of it waits, an item with the same arguments is that item, its reply
   * read after every one of its callers asked. Never held behind a gate.
   */
  shared?: boolean;
}

/** What an item held behind a gate that stayed shut is rejected with: its op never ran. */
export class GateShut extends Error {
  constructor() {
    super('held behind a gate that stayed shut');
  }
}
const SHUT = 'KEYWARD_GATE_SHUT';
const IN_FLIGHT = 2;

/**
 * The Lua scripts of the hot paths, run for many items at once: every item of every op that arrives while one call is
 * on the wire waits, and then they go together as one call: one command, one socket write and one reply for all of
 * them, where ioredis alone makes each a command of its own with a system call each (a third of a Redis heartbeat's
 * CPU in a profile). ioredis's auto-pipelining groups only the commands of one event-loop turn, which under load is
 * one request, and its pipeline still costs a command per item: both cost more than they saved (docs/benchmarks.md).
 *
 * A call goes once the event loop has read every socket that was ready (setImmediate), never straight from the item
 * that found nothing on the wire, nor straight from the previous call's reply: so the requests read in the same turn
 * travel together, where sending at once took only those read before the item (a call carried half as many items,
 * and a call's write wakes Redis on the other CPU: docs/benchmarks.md, fourteenth session). A quiet server waits one
 * turn of the loop. Two calls may be on the wire at once (IN_FLIGHT): with one, the server sat idle while Redis ran
 * it (a sixth of its time under load); with more, calls grew small and Redis's cost per call took CPU from the
 * server (docs/benchmarks.md, fifteenth session). Redis runs one connection's calls in order, so items still run in
 * the order they were added.
 *
 * One queue per Redis connection, shared by every op. A gate (behind()) lets an item start in the same call as the
 * item it depends on: a heartbeat's beat travels behind its client budget's count and runs only if the count allows
 * it; work whose effect is kept in memory instead waits for the gate's answer (admission()). A shared op's waiting
 * item serves every caller with the same arguments: a heartbeat of a session the instance knows reads only its
 * service's end counter, once for all the heartbeats of a call. Like the rest of Keyward it assumes one Redis node (no
 * KEYS: names come in ARGV). An item answered with `redis.error_reply` fails alone; a script that stops with an
 * error fails every item that travelled in its call; the next call goes on either way.
 */
export class RedisBatch {
  private static readonly byConnection = new WeakMap<Redis, RedisBatch>();

  /** The batch of this connection, made at its first use. */
  static of(redis: Redis): RedisBatch {
    let batch = RedisBatch.byConnection.get(redis);
    if (!batch) RedisBatch.byConnection.set(redis, (batch = new RedisBatch(redis)));
    return batch;
  }

  private readonly ops: BatchedOp[] = [];
  private waiting: Waiting[] = [];
  /** Calls on the wire (at most IN_FLIGHT). */
  private inFlight = 0;
  private scheduled = false;
  /** The gate the items added now wait behind (set while behind() runs its work). */
  private gate: Waiting | null = null;
  /** Calls sent to Redis so far (the tests read it: items that travel together are one call). */
  calls = 0;
  /** The command that runs the current set of ops (defined again when an op is added). */
  private command = '';
  /** The waiting items of shared ops, by op and arguments. */
  private readonly shared = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly redis: Redis,
    private readonly max = 500,
  ) {}

  /** Adds an op; the function it answers runs one item (its arguments, as many as `params`) and answers its reply. */
  define<Reply>(op: BatchedOp): (args: Arg[]) => Promise<Reply> {
    const index = this.ops.push(op);
    this.command = `keywardBatch${this.ops.length}`;
    this.redis.defineCommand(this.command, { numberOfKeys: 0, lua: script(this.ops) });
    return (args) => {
      if (args.length !== op.params.length) throw new Error(`${op.name} takes ${op.params.length} arguments per item`);
      if (!op.shared) return this.add<Reply>(index, args, this.gate);
      const shareId = `${index}\0${args.join('\0')}`;
      let waiting = this.shared.get(shareId) as Promise<Reply> | undefined;
      if (!waiting) this.shared.set(shareId, (waiting = this.add<Reply>(index, args, null, shareId)));
      return waiting;
    };
  }

  private add<Reply>(op: number, args: Arg[], gate: Waiting | null, shareId?: string): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.push({ op, args, resolve: resolve as (reply: never) => void, reject, gate, position: 0, shareId });
      this.schedule();
    });
  }

  /**
   * Runs `work` at once, and holds every item it adds before it returns (its synchronous part) behind the item added
   * last, the gate, whose op has `opens`: they travel in the same call, after it, and run only where `opens` is true
   * of its reply; where it is not, they are rejected with GateShut and their ops never run. Whatever else `work` does
   * happens either way: only a handler whose sole effect is such items may run this way.
   */
  behind<T>(work: () => T): T {
    const gate = this.waiting.at(-1);
    if (!gate || !this.ops[gate.op - 1]!.opens) throw new Error('behind() needs the gate: an item of an op with `opens`, added last');
    const outer = this.gate;
    this.gate = gate;
    try {
      return work();
    } finally {
      this.gate = outer;
    }
  }

  /**
   * Inside behind()'s work: a promise of its gate's answer, fulfilled where the gate opened and rejected (GateShut)
   * where it stayed shut; null outside. For work whose effect waits in memory rather than in items behind the gate.
   */
  admission(): Promise<void> | null {
    const gate = this.gate;
    if (!gate) return null;
    if (!gate.admission) {
      let settle!: (shutBy: unknown) => void;
      const promise = new Promise<void>((resolve, reject) => (settle = (shutBy) => (shutBy === null ? resolve() : reject(shutBy))));
      gate.admission = { promise, settle };
    }
    return gate.admission.promise;
  }

  private schedule(): void {
    if (this.inFlight >= IN_FLIGHT || this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.sendWaiting);
  }

  private readonly sendWaiting = () => {
    this.scheduled = false;
    this.send();
  };

  private send(): void {
    if (this.waiting.length === 0) return;
    this.inFlight++;
    this.calls++;
    // An item behind a gate never leaves its gate's call: they were added one after another, so take them along.
    let end = Math.min(this.max, this.waiting.length);
    while (end < this.waiting.length && this.waiting[end]!.gate !== null && this.waiting[end]!.gate!.position === 0) end++;
    const batch = end === this.waiting.length ? this.waiting : this.waiting.slice(0, end);
    this.waiting = end === this.waiting.length ? [] : this.waiting.slice(end);
    for (const item of batch) if (item.shareId !== undefined) this.shared.delete(item.shareId);
    const args: Arg[] = [];
    batch.forEach((item, i) => {
      item.position = i + 1;
      args.push(item.op, item.gate ? item.gate.position : 0);
      for (const arg of item.args) args.push(arg);
    });
    // What did not fit (past `max`) may go in the other call at once.
    if (this.waiting.length > 0) this.schedule();
    const call = (this.redis as unknown as Record<string, (...a: Arg[]) => Promise<unknown[]>>)[this.command]!;
    call
      .apply(this.redis, args)
      .then(
        (replies) => {
          // After the items' replies, the places of those that stayed shut (their gate, or they themselves as gates).
          const shut = replies[batch.length] as number[];
          batch.forEach((item, i) => {
            const reply = replies[i];
            // Redis puts its own code before the message (ERR).
            const failure = reply instanceof Error ? (reply.message.endsWith(SHUT) ? new GateShut() : reply) : null;
            if (!failure) item.resolve(reply as never);
            else item.reject(item.gate ? failure : reply);
            item.admission?.settle(failure ?? (shut.length > 0 && shut.includes(i + 1) ? new GateShut() : null));
          });
        },
        (err: unknown) =>
          batch.forEach((item) => {
            item.reject(err);
            item.admission?.settle(err);
          }),
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
  }
}

// ARGV: for each item its op's number (1-based), the place of the gate it waits behind in this call (0: none), then its
// arguments; one reply per item, in order, then the places of the items that stayed shut. An item behind a shut gate is
// shut too, so what waits behind it stays out.
const script = (ops: BatchedOp[]) => `
local ops = {
${ops
  .map(
    (op) =>
      `  {${op.params.length}, function(${op.params.join(', ')})\n${op.lua}\n  end, ${
        op.opens ? `function(reply, ${op.params.join(', ')}) return ${op.opens} end` : 'false'
      }},`,
  )
  .join('\n')}
}
local replies, open, shut = {}, {}, {}
local i, n, k = 1, #ARGV, 0
while i <= n do
  local op = ops[tonumber(ARGV[i])]
  local gate = tonumber(ARGV[i + 1])
  k = k + 1
  if gate == 0 or open[gate] then
    replies[k] = op[2](unpack(ARGV, i + 2, i + 1 + op[1]))
    open[k] = not op[3] or op[3](replies[k], unpack(ARGV, i + 2, i + 1 + op[1]))
  else
    replies[k] = redis.error_reply('${SHUT}')
    open[k] = false
  end
  if not open[k] then shut[#shut + 1] = k end
  i = i + 2 + op[1]
end
replies[k + 1] = shut
return replies
`;
