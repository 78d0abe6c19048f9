/**
 * npm run build && npx tsx bench/luarmor-users-1m.ts — contract §23, §28: GET /luarmor/v3/projects/{pid}/users without
 * from/until answers every one of 1,000,000 keys from the compiled server (dist/), streamed page by page from the
 * database. Reports users a second over the whole answer (read to the end by this process) and the growth of the
 * server's peak RSS (VmHWM) over its peak after a warm-up list of the first 10,000 (`until=10000`). SQLite;
 * PostgreSQL too with BENCH_POSTGRES=1 (as `npm run bench` runs it: the memory bound holds on both). KEYS overrides
 * the size. One JSON line per database (bench/run.ts collects them).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { silentLog } from '../src/context.ts';
import { createContext } from '../src/modules/state.ts';
import { migrate, openDatabase, type DbHandle } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { compiled, startServerProcess } from '../test/helpers/server-process.ts';
import { onEachDatabase } from './databases.ts';
import { seedKeys } from './seed-keys.ts';

const KEYS = Number(process.env.KEYS ?? 1_000_000);
const WARM_UP_KEYS = 10_000;
const SECRET = 'bench-secret-0123456789abcdef';
const MB = 1024 * 1024;

// --trace-gc's line per collection: "... Scavenge 10.2 (12.3) -> 9.8 (13.1) MB, ...", the heap used (and committed)
// before and after it.
const GC_LINE = /(?:Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Sweep)[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;
/** The largest heap (used, committed) in the collections of `lines`, in MB. */
function heapPeak(lines: string[]) {
  let used = 0;
  let committed = 0;
  let collections = 0;
  for (const line of lines) {
    const gc = GC_LINE.exec(line);
    if (!gc) continue;
    collections++;
    used = Math.max(used, Number(gc[1]));
    committed = Math.max(committed, Number(gc[2]), Number(gc[4]));
  }
  return { used, committed, collections };
}

const withTraceGc = ([node, ...args]: string[]) => [node!, '--trace-gc', ...args];

const peakRss = (pid: number) => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

async function newService(handle: DbHandle, env: Record<string, string>) {
  const ctx = await createContext({
    config: loadConfig({ KEYWARD_SECRET: SECRET, ...env }),
    database: handle,
    ownsDatabase: false,
    log: silentLog,
    role: 'cli',
  });
  const account = await createAccount(ctx, { username: `bench${randomBytes(4).toString('hex')}`, password: 'bench password 123' });
  const service = await createService(ctx, account.id, { name: `bench ${randomBytes(2).toString('hex')}` });
  await ctx.close();
  return { id: service.id, identifier: service.identifier, key: ctx.sealer.open(service.apiKeySealed) };
}

/** Reads the whole answer as a Luarmor bot does, counting the user records (one `{` each, beside the envelope's). */
async function listAll(url: string, key: string) {
  const response = await fetch(url, { headers: { authorization: key } });
  if (!response.ok) throw new Error(`GET users: ${response.status} ${await response.text()}`);
  let braces = 0;
  let bytes = 0;
  let head = '';
  for await (const chunk of response.body! as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (head.length < 64) head += Buffer.from(chunk.subarray(0, 64)).toString('latin1');
    let at = -1;
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while ((at = buffer.indexOf(123, at + 1)) !== -1) braces++;
  }
  if (!head.startsWith('{"success":true,"message":"Success!","users":[')) throw new Error(`GET users answered ${head}`);
  return { users: braces - 1, bytes };
}

async function measure(dialect: 'sqlite' | 'postgres', env: Record<string, string>, handle: DbHandle) {
  await migrate(handle.db);
  const big = await newService(handle, env);
  let started = performance.now();
  await seedKeys(handle, big.id, KEYS);
  const seedSeconds = (performance.now() - started) / 1000;

  const server = await startServerProcess(
    // The collector's trace tells growth in the JS heap (collection falling behind) from growth outside it (buffers):
    // a full run measured 109 MB on PostgreSQL where the same script alone measured 4 MB.
    { ...env, KEYWARD_SECRET: SECRET, LOG_LEVEL: 'warn', RATE_LIMIT_API_PER_MINUTE: '0' },
    { command: withTraceGc(compiled()) },
  );
  try {
    const pid = server.child.pid!;
    const usersUrl = (identifier: string) => `${server.url}/luarmor/v3/projects/${identifier}/users`;
    // The warm-up pays what any first list costs the process (compiled code, the collector's working size, the page
    // cache); the million-key answer's growth is then what streaming it adds.
    const small = await listAll(`${usersUrl(big.identifier)}?until=${WARM_UP_KEYS}`, big.key);
    if (small.users !== WARM_UP_KEYS) throw new Error(`warm-up: ${small.users} users, expected ${WARM_UP_KEYS}`);
    const before = peakRss(pid);
    const warmUpLines = server.lines.length;
    const heapBefore = heapPeak(server.lines);
    started = performance.now();
    const all = await listAll(usersUrl(big.identifier), big.key);
    const listSeconds = (performance.now() - started) / 1000;
    const growth = peakRss(pid) - before;
    const heap = heapPeak(server.lines.slice(warmUpLines));
    if (all.users !== KEYS) throw new Error(`GET users: ${all.users} users, expected ${KEYS}`);
    return {
      dialect,
      keys: KEYS,
      seedSeconds: Number(seedSeconds.toFixed(1)),
      listSeconds: Number(listSeconds.toFixed(2)),
      answerMB: Number((all.bytes / MB).toFixed(1)),
      usersPerSecond: Math.round(KEYS / listSeconds),
      peakRssGrowthMB: Number((growth / MB).toFixed(1)),
      // MB: the JS heap's largest used and committed size in the warm-up and in the whole list, and its collections.
      heapUsedPeakMB: { warmUp: heapBefore.used, list: heap.used },
      heapCommittedPeakMB: { warmUp: heapBefore.committed, list: heap.committed },
      collections: heap.collections,
    };
  } finally {
    await server.stop();
  }
}

async function sqliteOnly() {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-luarmor-users-'));
  const handle = openDatabase({ databaseUrl: null, dataDir: dir });
  try {
    return [await measure('sqlite', { DATA_DIR: dir }, handle)];
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = process.env.BENCH_POSTGRES === '1' ? await onEachDatabase('luarmorusers', measure) : await sqliteOnly();
for (const figures of results) console.log(JSON.stringify(figures));
