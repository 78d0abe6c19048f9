import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { alive } from '../../src/db/server-lock.ts';

/**
 * The sources compiled once per run, as `npm start` runs them (tsconfig.build.json), for the tests that start the
 * server or the CLI as a process of its own. Through tsx each such process spent about 3.2 s of CPU compiling and
 * loading the app (1.0 s compiled): under CI's load a test that ran the CLI four times passed its 30 s.
 *
 * The folder is named by a hash of what it is built from, so it is never stale (an edited source is a new folder)
 * and a run on unchanged sources reuses it. It sits beside dist/, at the same depth, so what the app finds relative
 * to its own modules (web/dist, the workers' entries) is where `npm start` finds it.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PREFIX = '.build-test-src-';

function sourceHash(): string {
  const hash = createHash('sha256');
  const sources = readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const inputs = [
    ...sources.map((entry) => join(entry.parentPath, entry.name)),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'tsconfig.build.json'),
  ].sort();
  for (const file of inputs) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * Builds the current sources unless built already, removes the builds of other sources, and answers the folder.
 * Synchronous on purpose: the projects' setups share one process, and the second finds the folder the first built.
 * Another run in the same tree builds into a folder of its own and the rename settles who wins.
 */
function build(): string {
  const out = join(ROOT, `${PREFIX}${sourceHash()}`);
  if (!existsSync(out)) {
    const partial = `${out}.partial-${process.pid}`;
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', partial], { cwd: ROOT, stdio: 'pipe' });
    } catch (error) {
      // tsc writes its output even with a type error; the tests then run what was written, as they would through
      // tsx, and `npm run check` is what reports the error.
      if (!existsSync(join(partial, 'server.js'))) {
        rmSync(partial, { recursive: true, force: true });
        throw error;
      }
    }
    try {
      renameSync(partial, out);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another run built the same sources first
    }
  }
  // Other builds go, and the partial ones of runs that ended mid-build (one still building is left alone).
  for (const entry of readdirSync(ROOT)) {
    const builder = /\.partial-(\d+)$/.exec(entry)?.[1];
    if (entry.startsWith(PREFIX) && join(ROOT, entry) !== out && !(builder && alive(Number(builder)))) {
      rmSync(join(ROOT, entry), { recursive: true, force: true });
    }
  }
  return out;
}

declare module 'vitest' {
  export interface ProvidedContext {
    compiledBuild: string;
  }
}

/** vitest's globalSetup (every project lists it); in watch mode each rerun builds the sources as they are then. */
export default function setup(project: TestProject): void {
  project.provide('compiledBuild', build());
  project.onTestsRerun(() => project.provide('compiledBuild', build()));
}

/** The folder the setup built (in a test file's worker). */
export function compiledBuild(): string {
  return inject('compiledBuild');
}

/** The command line of the compiled CLI, `keyward` as an operator runs it after `npm install`. */
export function compiledCli(): string[] {
  return [process.execPath, '--enable-source-maps', join(compiledBuild(), 'cli', 'main.js')];
}

/** The command line of the compiled server, as `npm start` runs it. */
export function compiledServer(): string[] {
  return [process.execPath, '--enable-source-maps', join(compiledBuild(), 'server.js')];
}
