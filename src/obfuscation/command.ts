import { spawn } from 'node:child_process';
import { ObfuscationFailed, type ObfuscationInput, type ObfuscationProvider } from './provider.ts';

const STDERR_TAIL_BYTES = 2048;

/**
 * Runs an operator-configured shell command (OBFUSCATOR_<TYPE>_COMMAND) that reads the code on stdin
 * and writes the result on stdout. The command runs in its own process group so a timeout or a
 * shutdown kills everything it started.
 */
export class CommandProvider implements ObfuscationProvider {
  readonly kind = 'command' as const;

  constructor(
    private readonly command: string,
    private readonly timeoutMs: number,
    private readonly maxOutputBytes: number,
  ) {}

  obfuscate(input: ObfuscationInput, signal: AbortSignal): Promise<Buffer[]> {
    return new Promise<Buffer[]>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', this.command], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      const output: Buffer[] = [];
      let outputBytes = 0;
      let stderr = Buffer.alloc(0);
      let failure: Error | null = null;

      const kill = (reason: Error) => {
        failure ??= reason;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => kill(new ObfuscationFailed(`the obfuscator timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      const onAbort = () => kill(new Error('obfuscation aborted: the app is closing'));
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();

      child.stdout.on('data', (chunk: Buffer) => {
        outputBytes += chunk.length;
        if (outputBytes > this.maxOutputBytes) {
          kill(new ObfuscationFailed(`the obfuscator's output exceeds ${this.maxOutputBytes} bytes`));
          return;
        }
        output.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = Buffer.concat([stderr, chunk]);
        if (stderr.length > STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
      });
      // A command that exits without reading all of stdin is not an error in itself; its exit code decides.
      child.stdin.on('error', () => {});
      child.on('error', (error) => kill(new ObfuscationFailed(`the obfuscator could not start: ${error.message}`)));
      child.on('close', (code, sig) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (failure) return reject(failure);
        if (code !== 0) {
          const tail = stderr.toString('utf8').trim();
          const how = code === null ? `was killed by ${sig}` : `exited with code ${code}`;
          return reject(new ObfuscationFailed(`the obfuscator ${how}${tail ? `: ${tail}` : ''}`));
        }
        if (outputBytes === 0) return reject(new ObfuscationFailed('the obfuscator produced no output'));
        resolve(output);
      });

      void (async () => {
        try {
          for await (const chunk of input.chunks()) {
            if (failure || child.stdin.destroyed) return;
            if (!child.stdin.write(chunk)) await new Promise<void>((r) => child.stdin.once('drain', r).once('close', r));
          }
          child.stdin.end();
        } catch (error) {
          kill(error instanceof Error ? error : new Error(String(error)));
        }
      })();
    });
  }
}
