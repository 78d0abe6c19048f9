import { execFile } from 'node:child_process';
import { TEST_SECRET } from './app.ts';
import { compiledCli } from './compiled-build.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** `keyward doctor` as an operator runs it, with `env` over the test's own: its exit code and its output lines. */
export function runDoctor(env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve) => {
    const [command, ...args] = compiledCli();
    execFile(
      command!,
      [...args, 'doctor'],
      { cwd: ROOT, env: { ...process.env, KEYWARD_SECRET: TEST_SECRET, HOST: '127.0.0.1', ...env } },
      (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, lines: stdout.trim().split('\n') }),
    );
  });
}
