import type { Redis } from 'ioredis';

type Arg = string | number;

interface Waiting {
  op: number;
  args: Arg[];
  resolve: (reply: never) => void;
  reject: (err: unknown) => void;
}

/** One kind of item of the shared batch: a Lua function of the item's arguments, answering that item's reply. */
export interface BatchedOp {
  /** Names the op in errors. */
  name: string;
  /** The Lua function's parameters, one per argument of an item. */
  params: string[];
  /** The function's body; it may use `redis.call` and must `return` the item's reply. */
  lua: string;
}

/**
 * The Lua scripts of the hot paths, run for many items at once: every item of every op that arrives while one call is
 * on the wire waits, and then they go together as one call: one command, one socket write and one reply for all of
 * them, where ioredis alone makes each a command of its own with a system call each (a third of a Redis heartbeat's
 * CPU in a profile). An item that finds nothing on the wire goes at once, so a quiet server adds no wait. ioredis's
 * auto-pipelining groups only the commands of one event-loop turn, which under load is one request, and its pipeline
 * still costs a command per item: both cost more than they saved (docs/benchmarks.md).
 *
 * One queue per Redis connection, shared by every op: a heartbeat spends the client budget and then beats, and the
 * spends of the requests just arrived travel with the beats of those already spent, so the two cost one call, not two
 * (docs/benchmarks.md, fifth round). Like the rest of Keyward it assumes one Redis node (no KEYS: names come in ARGV).
 * An item answered with `redis.error_reply` fails alone; a script that stops with an error fails every item that
 * travelled in its call; the next call goes on either way.
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
  private readonly waiting: Waiting[] = [];
  private sending = false;
  /** Calls sent to Redis so far (the tests read it: items that travel together are one call). */
  calls = 0;
  /** The command that runs the current set of ops (defined again when an op is added). */
  private command = '';

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
      return new Promise<Reply>((resolve, reject) => {
        this.waiting.push({ op: index, args, resolve: resolve as (reply: never) => void, reject });
        if (!this.sending) this.send();
      });
    };
  }

  private send(): void {
    if (this.waiting.length === 0) return;
    this.sending = true;
    this.calls++;
    const batch = this.waiting.splice(0, this.max);
    const args: Arg[] = [];
    for (const item of batch) {
      args.push(item.op);
      for (const arg of item.args) args.push(arg);
    }
    const call = (this.redis as unknown as Record<string, (...a: Arg[]) => Promise<unknown[]>>)[this.command]!;
    call
      .apply(this.redis, args)
      .then(
        (replies) =>
          batch.forEach((item, i) => (replies[i] instanceof Error ? item.reject(replies[i]) : item.resolve(replies[i] as never))),
        (err: unknown) => batch.forEach((item) => item.reject(err)),
      )
      .finally(() => {
        this.sending = false;
        this.send();
      });
  }
}

// ARGV: for each item its op's number (1-based), then its arguments; one reply per item, in order.
const script = (ops: BatchedOp[]) => `
local ops = {
${ops.map((op) => `  {${op.params.length}, function(${op.params.join(', ')})\n${op.lua}\n  end},`).join('\n')}
}
local replies = {}
local i, n = 1, #ARGV
while i <= n do
  local op = ops[tonumber(ARGV[i])]
  replies[#replies + 1] = op[2](unpack(ARGV, i + 1, i + op[1]))
  i = i + 1 + op[1]
end
return replies
`;
