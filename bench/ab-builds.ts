/**
 * Builds of other commits for bench/cpu-ab.ts, each in a work tree of its own, and the seeding of each build's
 * database by that build's own code. A target's database must be seeded by the build that serves it: the seed of
 * today's tree writes today's columns, which a build from before a migration does not have (and a build cannot
 * start on a database migrated past it), so an A/B of an older commit against today's seed cannot run at all.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface Build {
  /** What the A/B prints for this side: the commit's short hash, or the server.js given. */
  label: string;
  serverJs: string;
  /** The work tree whose bench/seed-service.ts seeds this build's database; undefined: today's tree seeds it. */
  tree?: string;
}

const ROOT = resolve(import.meta.dirname, '..');
const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();

/** The commit a name resolves to (a hash, a branch, `HEAD~3`), or undefined when it names none. */
function commitOf(name: string): string | undefined {
  try {
    return git('rev-parse', '--verify', '--quiet', `${name}^{commit}`);
  } catch {
    return undefined;
  }
}

/**
 * A server.js path as given, or a commit: checked out once into a work tree under the temp folder (kept between runs,
 * so a second A/B of the same commit starts at once), with this tree's node_modules linked in and compiled as
 * `npm start` runs it.
 */
export function prepareBuild(name: string): Build {
  if (name.endsWith('.js') && existsSync(name)) return { label: name, serverJs: name };
  const commit = commitOf(name);
  if (!commit) throw new Error(`${name} is neither a server.js file nor a commit of this repository`);
  const tree = join(tmpdir(), 'keyward-ab', commit.slice(0, 12));
  const serverJs = join(tree, 'dist', 'server.js');
  if (existsSync(serverJs)) return { label: commit.slice(0, 9), serverJs, tree };
  mkdirSync(join(tmpdir(), 'keyward-ab'), { recursive: true });
  if (!existsSync(tree)) {
    console.error(`checking out ${commit.slice(0, 9)} into ${tree}`);
    git('worktree', 'add', '--quiet', '--force', '--detach', tree, commit);
    // Hard links: a copy of node_modules in seconds and no download. A commit whose dependencies differ from today's
    // would need its own install; the build below says so by failing.
    execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(tree, 'node_modules')]);
  }
  console.error(`building ${commit.slice(0, 9)}`);
  execFileSync(process.execPath, [join(tree, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: tree,
    stdio: 'inherit',
  });
  return { label: commit.slice(0, 9), serverJs, tree };
}

export interface Seeded {
  identifier: string;
  serviceKey: string;
}

// Runs in the build's tree, with that tree's own seed (bench/seed-service.ts, in every commit since 2026-11-26).
const SEED_DRIVER = `import { seedBenchService } from './seed-service.ts';
const { env, what, counts } = JSON.parse(process.env.KEYWARD_AB_SEED);
const seeded = await seedBenchService(env, what, counts);
console.log('KEYWARD_AB_SEEDED ' + JSON.stringify({ identifier: seeded.identifier, serviceKey: seeded.serviceKey }));
process.exit(0);
`;

/** Seeds a target's database with the code of the build's own tree, in a process of its own. */
export function seedInTree(tree: string, env: Record<string, string>, what: string, counts: object): Promise<Seeded> {
  if (!existsSync(join(tree, 'bench', 'seed-service.ts'))) {
    throw new Error(`${tree} has no bench/seed-service.ts: commits before 2026-11-26 cannot seed a bench database`);
  }
  const driver = join(tree, 'bench', '.ab-seed.ts');
  writeFileSync(driver, SEED_DRIVER);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', driver], {
      cwd: tree,
      env: { ...process.env, KEYWARD_AB_SEED: JSON.stringify({ env, what, counts }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('KEYWARD_AB_SEEDED '));
      if (code !== 0 || !line) return reject(new Error(`seeding with ${tree}'s own code failed (exit ${code})`));
      resolvePromise(JSON.parse(line.slice('KEYWARD_AB_SEEDED '.length)) as Seeded);
    });
  });
}
