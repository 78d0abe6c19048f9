import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * How to start the worker file `name` (without extension) that sits beside the module at `base` (its
 * import.meta.url). The compiled server runs dist/…/<name>.js. The sources (tsx, vitest) have <name>.ts, and on
 * Node 20 tsx's ESM loader does not reach into a worker (not even through execArgv), so the worker first registers
 * tsx's CommonJS loader and requires the file through it.
 */
export function workerEntry(base: string, name: string): { entry: string | URL; eval: boolean } {
  if (!base.endsWith('.ts')) return { entry: new URL(`./${name}.js`, base), eval: false };
  const require = createRequire(base);
  const file = fileURLToPath(new URL(`./${name}.ts`, base));
  const tsx = require.resolve('tsx/cjs/api');
  return { entry: `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(file)});`, eval: true };
}
