/**
 * Waits until the machine is quiet before a measurement: what one target leaves behind (a flush of its lastUsedAt
 * times, PostgreSQL's autovacuum and checkpoint after its writes, the disk draining) otherwise lands on whichever
 * target the run measures next. Quiet: less than QUIET_SHARE of all CPUs busy (waiting for the disk counts as busy)
 * over two windows in a row; at most MAX_WAIT_MS, after which the measurement goes ahead, and the wait and the busiest
 * processes at that moment are recorded (the run prints them).
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuOf, processIds } from './cpu-target.ts';

const WINDOW_MS = 250;
const QUIET_SHARE = 0.05;
const MAX_WAIT_MS = 30_000;

/** Busy and total jiffies of all CPUs since boot; iowait counts as busy. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3]!, total };
}

export const settled = { waits: 0, waitedMs: 0, timeouts: 0, busiest: [] as string[] };

/** CPU ms of every process now, by pid. */
function processTimes(): Map<string, number> {
  const times = new Map<string, number>();
  for (const pid of processIds()) {
    try {
      const { user, system } = cpuOf(Number(pid));
      times.set(pid, user + system);
    } catch {
      // The process ended meanwhile.
    }
  }
  return times;
}

/** Which processes keep the machine busy: the three busiest over one second, with their share of a CPU. */
async function busiest(): Promise<string> {
  const before = processTimes();
  await sleep(1000);
  const after = processTimes();
  const ranked = [...after].map(([pid, t]) => [pid, t - (before.get(pid) ?? t)] as const).sort((a, b) => b[1] - a[1]);
  return (
    ranked
      .slice(0, 3)
      .filter(([, ms]) => ms > 0)
      .map(([pid, ms]) => {
        let command = '?';
        try {
          // Kernel threads have no command line: their name instead.
          command =
            readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 60) ||
            readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          // Ended.
        }
        // Over one second, ms of CPU ÷ 10 is the share of a CPU in percent.
        return `${ms / 10}% ${pid} ${command}`;
      })
      .join('; ') || 'no process on a CPU (waiting for the disk)'
  );
}

export async function settle(): Promise<void> {
  const started = Date.now();
  let quietWindows = 0;
  while (quietWindows < 2) {
    if (Date.now() - started >= MAX_WAIT_MS) {
      settled.timeouts++;
      settled.busiest.push(await busiest());
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
