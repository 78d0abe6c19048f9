import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `src/server.ts` as its own process (as `npm start` does) on a free port and resolves once it
 * prints its address: the real thing, for tests and benchmarks that need several instances.
 */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    // Vitest puts Vite's BASE_URL ("/") into the environment; a server needs a real one.
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', BASE_URL: 'http://keyward.test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /^Keyward listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve({ url: match[1]!, child, stop });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${stderr}`)));
  });
}
