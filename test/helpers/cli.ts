import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledCli } from './compiled-build.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** What it reads on stdin (then end of input); nothing unless given. */
  stdin?: string;
  /** Runs it as another user (e.g. an unprivileged one when the tests run as root). */
  user?: { uid: number; gid: number };
}

/**
 * `keyward …` as an operator runs it after `npm install`: the compiled CLI (this run's build of the current sources),
 * with `env` over the test process's own. Resolves with its exit code and output once it has exited.
 */
export function runKeyward(args: string[], env: Record<string, string>, options: CliOptions = {}): Promise<CliRun> {
  const [command, ...prefix] = compiledCli();
  return new Promise((resolve) => {
    const child = spawn(command!, [...prefix, ...args], { cwd: ROOT, env: { ...process.env, ...env }, ...(options.user ?? {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
