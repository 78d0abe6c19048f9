import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { compiledServer } from './compiled-build.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The sources through tsx, as `npm run dev` runs them (what a benchmark starts unless it says otherwise). */
export const FROM_SOURCE = [process.execPath, '--import', 'tsx', 'src/server.ts'];
/** The compiled server as `npm start` runs it (`dist/` is built by `npm install`'s `prepare` or `npm run build`). */
export const compiled = (entry = 'dist/server.js') => [process.execPath, '--enable-source-maps', entry];

export interface ServerProcessOptions {
  /**
   * The command line, e.g. `compiled()`. Unless given: in a test, the run's own build of the current sources
   * (test/helpers/compiled-build.ts: never stale, a third of tsx's start-up CPU); elsewhere FROM_SOURCE.
   */
  command?: string[];
  /** The directory it runs in; the repository's root unless given. */
  cwd?: string;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Every line the server has printed on stdout so far (its log, one JSON object a line, and its messages). */
  lines: string[];
  /** What it has printed on stderr so far. */
  stderr(): string;
  /** Resolves once `test` holds for the output so far; checked again on every new line of either stream. */
  waitFor(test: (lines: string[], stderr: string) => boolean): Promise<void>;
  /** Resolves with the exit code once the process has exited. */
  exited(): Promise<number | null>;
  /** SIGTERM, then resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts a Keyward server as its own process on a free port (PORT 0 unless `env` says otherwise) and
 * resolves once it prints its address: the real thing, for tests and benchmarks that need a process of
 * their own or several instances.
 */
export function startServerProcess(env: Record<string, string>, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const [command, ...args] = options.command ?? (process.env.VITEST ? compiledServer() : FROM_SOURCE);
  const child = spawn(command!, args, {
    cwd: options.cwd ?? ROOT,
    // Vitest puts Vite's BASE_URL ("/") into the environment; a server needs a real one.
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', BASE_URL: 'http://keyward.test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  const waiters = new Set<() => void>();
  const changed = () => waiters.forEach((check) => check());
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
    changed();
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    changed();
  });
  // 'close' comes after both streams are read to the end, so no line is missing once it is seen.
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const waitFor = (test: (lines: string[], stderr: string) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!test(lines, stderr)) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
      void exit.then((code) => {
        if (!waiters.has(check)) return;
        waiters.delete(check);
        reject(new Error(`server exited with ${code} before its output showed what was awaited:\n${stderr}`));
      });
    });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exit;
  };
  const listening = (line: string) => /^Keyward listening on (http:\/\/\S+)/.exec(line);
  return waitFor((output) => output.some((line) => listening(line))).then(() => ({
    url: listening(lines.find((line) => listening(line))!)![1]!,
    child,
    lines,
    stderr: () => stderr,
    waitFor,
    exited: () => exit,
    stop,
  }));
}
