import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Why a path could not be used, in words a person acts on (the code Node gives is not one). */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  ENOSPC: 'the disk is full',
};

const reasonOf = (code: unknown) => (typeof code === 'string' ? REASONS[code] : undefined);

/** A file-system error as one sentence naming the path and why, or null for anything else (the CLI's last catch). */
export function pathProblem(error: unknown): string | null {
  if (!(error instanceof Error) || !('code' in error) || !('path' in error) || typeof error.path !== 'string') return null;
  const reason = reasonOf(error.code);
  return reason ? `cannot use ${error.path}: ${reason}` : null;
}

/** Raised by the checks below: the path and why, already a sentence. */
export class PathError extends Error {}

/** A file to read: it exists, is a file, and this user may read it; otherwise one sentence naming it and why. */
export function assertReadableFile(file: string): void {
  try {
    if (statSync(file).isDirectory()) throw new PathError(`cannot read ${file}: it is a folder`);
    accessSync(file, constants.R_OK);
  } catch (error) {
    if (error instanceof PathError) throw error;
    throw new PathError(`cannot read ${file}: ${reasonOf((error as NodeJS.ErrnoException).code) ?? (error as Error).message}`);
  }
}

/**
 * A file about to be written: its folder exists and this user may write there (checked before any work, so a long
 * snapshot does not end in a failure to write it); otherwise one sentence naming the file and why.
 */
export function assertWritableFile(file: string): void {
  const folder = dirname(file);
  try {
    if (!statSync(folder).isDirectory()) throw new PathError(`cannot write ${file}: ${folder} is not a folder`);
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch (error) {
    if (error instanceof PathError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `the folder ${folder} does not exist` : `${reasonOf(code) ?? (error as Error).message} (in ${folder})`;
    throw new PathError(`cannot write ${file}: ${why}`);
  }
}

/** An existing folder this user must read and write (the SQLite DATA_DIR); a missing one is created later. */
export function assertUsableFolder(folder: string, name: string): void {
  try {
    accessSync(folder, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new PathError(
      `cannot use ${folder} (${name}): ${reasonOf(code) ?? (error as Error).message}; run the command as the user the server runs as`,
    );
  }
}
