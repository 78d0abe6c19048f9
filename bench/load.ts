/**
 * The load generator, always a separate process from the servers and from this script: wrk (Debian's
 * package, installed here when missing and allowed), else autocannon's command line. Rate-limited runs
 * (p99 at half load) need a fixed request rate, which wrk 4 cannot do, so they always use autocannon.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Answers that were not 2xx, socket errors and timeouts together. */
  failed: number;
  /** Requests answered (wrk only). */
  requests?: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** Requests per second over all connections; unset means as fast as the server answers. */
  rate?: number;
  /** CPUs the generator may run on (taskset), so it does not compete with the server for one core. */
  cpus?: string;
  /**
   * wrk only: Lua defining `request()`, which builds each request (a path per request, for traffic of many keys).
   * wrk runs one thread here, so the script's counters are those of the whole run.
   */
  script?: string;
}

const onPath = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** wrk when present or installable (root with apt-get); false means autocannon does the work. */
export function ensureWrk(): boolean {
  if (onPath('wrk')) return true;
  if (process.env.BENCH_NO_INSTALL || !onPath('apt-get') || process.getuid?.() !== 0) return false;
  console.log('installing wrk with apt-get …');
  try {
    execFileSync(
      'sh',
      [
        '-c',
        'apt-get install -y -qq wrk >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq wrk >/dev/null 2>&1)',
      ],
      {
        stdio: 'inherit',
      },
    );
  } catch {
    return false;
  }
  return onPath('wrk');
}

export const canPin = () => onPath('taskset');

// wrk's summary as one JSON line: its own text output rounds latencies and hides status errors.
const WRK_REPORT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"micros":%d,"p50":%f,"p99":%f,"failed":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.connect + e.read + e.write + e.status + e.timeout, e.status, e.timeout))
end
`;
let wrkScript: string | undefined;
let scripts = 0;

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited with ${code}: ${err || out}`))));
  });
}

const pinned = (cpus: string | undefined, command: string, args: string[]): [string, string[]] =>
  cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];

export async function wrk(url: string, options: LoadOptions): Promise<LoadResult> {
  if (!wrkScript) writeFileSync((wrkScript = join(tmpdir(), `keyward-bench-wrk-${process.pid}.lua`)), WRK_REPORT);
  let script = wrkScript;
  if (options.script)
    writeFileSync((script = join(tmpdir(), `keyward-bench-wrk-${process.pid}-${++scripts}.lua`)), options.script + WRK_REPORT);
  const headerArgs = Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  // A loaded machine can hold an answer past wrk's default 2 s, which it would count as a failure.
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', ...headerArgs, '-s', script, url];
  const out = await run(...pinned(options.cpus, 'wrk', args));
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
  if (!line) throw new Error(`wrk printed no summary:\n${out}`);
  const s = JSON.parse(line) as {
    requests: number;
    micros: number;
    p50: number;
    p99: number;
    failed: number;
    status: number;
    timeout: number;
  };
  if (s.failed > 0)
    console.log(`    wrk: ${s.status} answers not 2xx/3xx, ${s.timeout} timeouts, ${s.failed - s.status - s.timeout} socket errors`);
  if (script !== wrkScript) rmSync(script, { force: true });
  return { rps: Math.round(s.requests / (s.micros / 1e6)), p50: round(s.p50), p99: round(s.p99), failed: s.failed, requests: s.requests };
}

export async function autocannon(url: string, options: LoadOptions): Promise<LoadResult> {
  if (options.script) throw new Error('a request script needs wrk (apt-get install wrk)');
  const bin = join(ROOT, 'node_modules/.bin/autocannon');
  if (!existsSync(bin)) throw new Error('neither wrk nor autocannon is available');
  const args = ['-j', '-c', String(options.connections), '-d', String(options.seconds)];
  if (options.rate) args.push('--overallRate', String(Math.max(1, Math.round(options.rate))));
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`);
  args.push(url);
  const out = await run(...pinned(options.cpus, bin, args));
  const r = JSON.parse(out.slice(out.indexOf('{'))) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, failed: r.non2xx + r.errors + r.timeouts };
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
