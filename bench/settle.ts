/**
 * Waits until the machine is quiet before a measurement: what one target leaves behind (a flush of its lastUsedAt
 * times, PostgreSQL's autovacuum and checkpoint after its writes, the disk draining) otherwise lands on whichever
 * target the run measures next. Quiet: less than QUIET_SHARE of all CPUs busy (waiting for the disk counts as busy)
 * over two windows in a row; at most MAX_WAIT_MS, after which the measurement goes ahead and the wait is counted.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const WINDOW_MS = 250;
const QUIET_SHARE = 0.05;
const MAX_WAIT_MS = 30_000;

/** Busy and total jiffies of all CPUs since boot; iowait counts as busy. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3]!, total };
}

export const settled = { waits: 0, waitedMs: 0, timeouts: 0 };

export async function settle(): Promise<void> {
  const started = Date.now();
  let quietWindows = 0;
  while (quietWindows < 2) {
    if (Date.now() - started >= MAX_WAIT_MS) {
      settled.timeouts++;
      break;
    }
    const before = cpuTimes();
    await sleep(WINDOW_MS);
    const after = cpuTimes();
    const share = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    quietWindows = share < QUIET_SHARE ? quietWindows + 1 : 0;
  }
  settled.waits++;
  settled.waitedMs += Date.now() - started;
}
