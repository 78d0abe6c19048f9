import { TEST_SECRET } from './app.ts';
import { runKeyward } from './cli.ts';

/** `keyward doctor` as an operator runs it, with `env` over the test's own: its exit code and its output lines. */
export async function runDoctor(env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  const run = await runKeyward(['doctor'], { KEYWARD_SECRET: TEST_SECRET, HOST: '127.0.0.1', ...env });
  return { code: run.code, lines: run.stdout.trim().split('\n') };
}
