import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * A server using the embedded database says so in DATA_DIR/keyward.pid, so that `keyward restore` can refuse to
 * swap the file under it (SQLite itself would let the copy happen and the server would go on with a broken file).
 */
export const SERVER_LOCK_FILE = 'keyward.pid';

export interface ServerLock {
  pid: number;
  host: string;
  startedAt: string;
}

function readLock(dataDir: string): ServerLock | null {
  const file = join(dataDir, SERVER_LOCK_FILE);
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServerLock>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return null;
    return { pid: parsed.pid, host: parsed.host, startedAt: String(parsed.startedAt ?? '') };
  } catch {
    return null;
  }
}

/** Whether process `pid` runs on this host. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The server that holds the database in `dataDir`, or null when none does. A lock written on another host (another
 * container sharing the volume) cannot be checked from here, so it counts as held.
 */
export function serverHolding(dataDir: string): (ServerLock & { checkable: boolean }) | null {
  const lock = readLock(dataDir);
  if (!lock) return null;
  if (lock.host !== hostname()) return { ...lock, checkable: false };
  return alive(lock.pid) && lock.pid !== process.pid ? { ...lock, checkable: true } : null;
}

/** Marks the database as held by this process; the returned function lets go (only of a lock that is still ours). */
export function holdServerLock(dataDir: string): () => void {
  const file = join(dataDir, SERVER_LOCK_FILE);
  const lock: ServerLock = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  writeFileSync(file, JSON.stringify(lock) + '\n');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const current = readLock(dataDir);
    if (current?.pid === process.pid && current.host === lock.host) rmSync(file, { force: true });
  };
}
