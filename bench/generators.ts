/**
 * One server process, loaded in turns by autocannon (a count of requests) and by wrk (seconds), the generator pinned to
 * CPU 1 and the server to CPU 0: the server's CPU per request (user and system) under each, with the interrupts
 * each CPU took per request that wake a sleeping process (function-call and rescheduling IPIs, /proc/interrupts).
 *   npx tsx bench/generators.ts [cold|validate|heartbeat|hello|fetch] [turns=3]
 * wrk keeps the server busy and sleeps between answers; autocannon is busy itself. An answer that finds the generator
 * asleep wakes it with an interrupt, which in a virtual machine costs the server a trip to the hypervisor: the
 * twenty-fifth session found a cold validation at 49 µs under wrk against 37 under autocannon, 0.58 wake-ups an answer
 * against 0.08, in the same process (docs/benchmarks.md). With DATABASE_URL and REDIS_URL it serves as cpu-cost does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { cpuOf, requestsOf, startTarget, wrkSlice, type What } from './cpu-target.ts';

const what = (process.argv[2] ?? 'cold') as What;
const turns = Number(process.argv[3] ?? 3);
const AUTOCANNON_REQUESTS = 60_000;
const WRK_SECONDS = 3;

/** Function-call (CAL) and rescheduling (RES) interrupts taken so far, per CPU. */
function wakeUps(): number[] {
  const counts: number[] = [];
  for (const line of readFileSync('/proc/interrupts', 'utf8').split('\n')) {
    const match = /^\s*(?:CAL|RES):((?:\s+\d+)+)/.exec(line);
    if (!match) continue;
    match[1]!
      .trim()
      .split(/\s+/)
      .forEach((count, cpu) => (counts[cpu] = (counts[cpu] ?? 0) + Number(count)));
  }
  return counts;
}

const server = await startTarget(what, {
  serverJs: process.env.SERVER_JS ?? 'dist/server.js',
  coldKeys: Number(process.env.COLD_KEYS ?? 50_000),
  redemptions: 1000,
  nodeArgs: process.env.NODE_ARGS?.split(' ').filter(Boolean),
});
execFileSync('taskset', ['-a', '-p', '-c', '0', String(server.pid)], { stdio: 'ignore' });
execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
const requests = requestsOf(server);
await autocannon({ url: server.url, connections: 50, amount: 20_000, requests });

/** What `send` cost the server per request it answered. */
async function measure(generator: string, send: () => Promise<{ answered: number; seconds: number }>) {
  const cpuBefore = cpuOf(server.pid);
  const wakeBefore = wakeUps();
  const { answered, seconds } = await send();
  const cpuAfter = cpuOf(server.pid);
  const wakeAfter = wakeUps();
  const per = (value: number) => Math.round((value * 10) / answered) / 10;
  console.log(
    JSON.stringify({
      what,
      generator,
      requestsPerSecond: Math.round(answered / seconds),
      serverUsPerRequest: per((cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) * 1000),
      userUs: per((cpuAfter.user - cpuBefore.user) * 1000),
      systemUs: per((cpuAfter.system - cpuBefore.system) * 1000),
      wakeUpsPerRequestByCpu: wakeAfter.map((count, cpu) => Math.round(((count - (wakeBefore[cpu] ?? 0)) * 100) / answered) / 100),
    }),
  );
}

for (let turn = 0; turn < turns; turn++) {
  await measure('autocannon', async () => {
    const result = await autocannon({ url: server.url, connections: 50, amount: AUTOCANNON_REQUESTS, requests });
    return { answered: AUTOCANNON_REQUESTS, seconds: result.duration };
  });
  await measure('wrk', async () => ({ answered: (await wrkSlice(server, WRK_SECONDS)).requests, seconds: WRK_SECONDS }));
}
await server.kill();
process.exit(0);
