import type { Redis } from 'ioredis';

type Arg = string | number;

interface Waiting<Reply> {
  args: Arg[];
  resolve: (reply: Reply) => void;
  reject: (err: unknown) => void;
}

/**
 * A Lua script of a hot path run for many items at once. While one call is on the wire, the items that arrive meanwhile
 * wait and then go together as one call: one command, one socket write and one reply for all of them, where ioredis
 * alone makes each a command of its own with a system call each (a third of a Redis heartbeat's CPU in a profile). An
 * item that finds nothing on the wire goes at once, so a quiet server adds no wait. ioredis's auto-pipelining groups
 * only the commands of one event-loop turn, which under load is one request, and its pipeline still costs a command
 * per item: both cost more than they saved (docs/benchmarks.md).
 *
 * The script gets `head()`'s arguments, then each item's `width` arguments in turn (ARGV, no KEYS: like the rest of
 * Keyward it assumes one Redis node), and answers a table with one reply per item, in order.
 */
export class BatchedScript<Reply> {
  private readonly waiting: Array<Waiting<Reply>> = [];
  private sending = false;

  constructor(
    private readonly redis: Redis,
    private readonly name: string,
    lua: string,
    private readonly width: number,
    private readonly head: () => Arg[] = () => [],
    private readonly max = 500,
  ) {
    redis.defineCommand(name, { numberOfKeys: 0, lua });
  }

  /** Runs the script for one item (its `width` arguments) and answers that item's reply. */
  run(args: Arg[]): Promise<Reply> {
    if (args.length !== this.width) throw new Error(`${this.name} takes ${this.width} arguments per item`);
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.push({ args, resolve, reject });
      if (!this.sending) this.send();
    });
  }

  private send(): void {
    if (this.waiting.length === 0) return;
    this.sending = true;
    const batch = this.waiting.splice(0, this.max);
    const args = this.head();
    for (const item of batch) for (const arg of item.args) args.push(arg);
    const call = (this.redis as unknown as Record<string, (...a: Arg[]) => Promise<Reply[]>>)[this.name]!;
    call
      .apply(this.redis, args)
      .then(
        (replies) => batch.forEach((item, i) => item.resolve(replies[i]!)),
        (err: unknown) => batch.forEach((item) => item.reject(err)),
      )
      .finally(() => {
        this.sending = false;
        this.send();
      });
  }
}
