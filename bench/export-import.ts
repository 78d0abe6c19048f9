/**
 * npm run build && npx tsx bench/export-import.ts — contract §7.4 at scale, on SQLite and (when it answers) PostgreSQL:
 *  - export of 1,000,000 keys (GET /keys/api/keys/export, CSV) from the compiled server (dist/): the growth of its peak
 *    RSS (VmHWM) over the peak after a 10,000-key export (and over a cold start, for the record), and its time
 *    against a bare read of the same rows through the same driver (see bareSelect);
 *  - import of 10,000 Luarmor records in one call against generating 10,000 keys in 10 calls.
 * One JSON line per database (bench/run.ts collects them). KEYS overrides the export size.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { silentLog } from '../src/context.ts';
import { createContext } from '../src/modules/state.ts';
import { migrate, type DbHandle } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { compiled, startServerProcess } from '../test/helpers/server-process.ts';
import { onEachDatabase } from './databases.ts';
import { seedKeys } from './seed-keys.ts';

const KEYS = Number(process.env.KEYS ?? 1_000_000);
const IMPORT_RECORDS = 10_000;
const SECRET = 'bench-secret-0123456789abcdef';
const MB = 1024 * 1024;

const statusOf = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
const fieldOf = (status: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)![1]);
const peakRss = (pid: number) => fieldOf(statusOf(pid), 'VmHWM') * 1024;

/**
 * The server's anonymous and file-backed resident memory and its threads, read every 100 ms until stopped: their
 * highest values say where a peak's growth lives (the heaps and buffers, or mapped files), which VmHWM alone does not.
 * One full run read 101–109 MB of export growth that no run of the script reproduced; the next one says which it was.
 */
function sampleMemory(pid: number) {
  const peak = { anon: 0, file: 0, threads: 0 };
  const read = () => {
    const status = statusOf(pid);
    peak.anon = Math.max(peak.anon, fieldOf(status, 'RssAnon') * 1024);
    peak.file = Math.max(peak.file, fieldOf(status, 'RssFile') * 1024);
    peak.threads = Math.max(peak.threads, fieldOf(status, 'Threads'));
  };
  read();
  const timer = setInterval(read, 100);
  return {
    /** The peaks, with one last read: the run's own end. */
    finish: () => {
      clearInterval(timer);
      read();
      return peak;
    },
    // Without a read: an export that threw may have taken the server with it, and /proc would no longer answer.
    stop: () => clearInterval(timer),
  };
}
const seconds = (since: number) => (performance.now() - since) / 1000;

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
  return { id: service.id, key: ctx.sealer.open(service.apiKeySealed) };
}

/**
 * The baseline: the rows the export reads (both key tables and the HWIDs), read and dropped. SQLite streams them in
 * one SELECT each (better-sqlite3's iterator), a stricter baseline than the export's keyset batches (the export
 * cannot hold SQLite's only connection for the whole download). The pg driver cannot stream without pg-cursor (not
 * a dependency), so on PostgreSQL baseline and export use the same mechanism: keyset batches of 1,000 by key.
 */
async function bareSelect(handle: DbHandle, serviceId: string): Promise<number> {
  let rows = 0;
  if (handle.dialect === 'sqlite') {
    for (const table of ['activeKeys', 'generatedKeys', 'keyHwids'] as const) {
      for await (const row of handle.db.selectFrom(table).selectAll().where('serviceId', '=', serviceId).stream(1000)) if (row) rows++;
    }
    return rows;
  }
  for (const table of ['activeKeys', 'generatedKeys'] as const) {
    let after: string | null = null;
    for (;;) {
      const batch = await handle.db
        .selectFrom(table)
        .selectAll()
        .where('serviceId', '=', serviceId)
        .$if(after !== null, (q) => q.where('key', '>', after!))
        .orderBy('key')
        .limit(1000)
        .execute();
      rows += batch.length;
      if (batch.length < 1000) break;
      after = batch.at(-1)!.key;
    }
  }
  let last: { key: string; position: number } | null = null;
  for (;;) {
    const from: { key: string; position: number } | null = last;
    const batch = await handle.db
      .selectFrom('keyHwids')
      .selectAll()
      .where('serviceId', '=', serviceId)
      .$if(from !== null, (q) => q.where(sql<boolean>`(key, position) > (${from!.key}, ${from!.position})`))
      .orderBy('key')
      .orderBy('position')
      .limit(1000)
      .execute();
    rows += batch.length;
    if (batch.length < 1000) break;
    last = { key: batch.at(-1)!.key, position: Number(batch.at(-1)!.position) };
  }
  return rows;
}

async function measure(dialect: 'sqlite' | 'postgres', env: Record<string, string>, handle: DbHandle) {
  await migrate(handle.db);
  const big = await newService(handle, env);
  let started = performance.now();
  await seedKeys(handle, big.id, KEYS);
  const seeded = seconds(started);

  started = performance.now();
  const selected = await bareSelect(handle, big.id);
  const bareSelectSeconds = seconds(started);

  // The compiled server, as `npm start` runs it (npm run bench builds dist/ first): from the sources, the export's
  // worker thread would also compile its TypeScript through tsx on every export.
  const server = await startServerProcess(
    { ...env, KEYWARD_SECRET: SECRET, LOG_LEVEL: 'warn', RATE_LIMIT_API_PER_MINUTE: '0' },
    { command: compiled() },
  );
  let sampled: ReturnType<typeof sampleMemory> | undefined;
  try {
    const pid = server.child.pid!;
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/v1${path}`, {
        ...init,
        headers: { 'x-api-key': big.key, 'content-type': 'application/json', ...init.headers },
      });
    // Cold: the server has answered one small page. Then it generates 10,000 keys (timed, against the import below)
    // and exports them: what the first export costs the process once (compiled code, the collector's young
    // generation growing to its working size, SQLite's page cache) is then paid, and the 1,000,000-key export's
    // growth is what that export itself adds. Both are reported.
    await (await api('/keys/api/keys?limit=10')).arrayBuffer();
    const cold = peakRss(pid);
    const generator = await newService(handle, env);
    started = performance.now();
    for (let call = 0; call < 10; call++) {
      const res = await fetch(`${server.url}/api/v1/keys/api/generate`, {
        method: 'POST',
        headers: { 'x-api-key': generator.key, 'content-type': 'application/json' },
        body: JSON.stringify({ expirationType: 'byDays', days: 30, count: IMPORT_RECORDS / 10 }),
      });
      if (res.status !== 201) throw new Error(`generate: ${res.status} ${await res.text()}`);
    }
    const generateSeconds = seconds(started);
    const small = await fetch(`${server.url}/api/v1/keys/api/keys/export?format=csv`, { headers: { 'x-api-key': generator.key } });
    if (!small.ok) throw new Error(`export of 10,000 keys: ${small.status}`);
    await small.arrayBuffer();
    const before = peakRss(pid);
    const settled = statusOf(pid);
    sampled = sampleMemory(pid);
    started = performance.now();
    const response = await api('/keys/api/keys/export?format=csv');
    if (!response.ok) throw new Error(`export: ${response.status}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body!) {
      const view = chunk as Uint8Array;
      bytes += view.length;
      // indexOf, not a JavaScript walk over each byte: the walk took seconds of the two CPUs the server shares with it.
      for (let at = view.indexOf(10); at !== -1; at = view.indexOf(10, at + 1)) lines++;
    }
    const exportSeconds = seconds(started);
    const peak = peakRss(pid);
    const growth = peak - before;
    const sampledPeak = sampled.finish();
    if (lines - 1 !== KEYS) throw new Error(`export: ${lines - 1} rows, expected ${KEYS}`);

    // Import against generate (above), on a service of its own.
    const importer = await newService(handle, env);
    const records = Array.from({ length: IMPORT_RECORDS }, (_, i) => ({
      user_key: `lua_${randomBytes(8).toString('hex')}_${i}`,
      identifier: i % 2 === 0 ? `HWID-${i}` : '',
      identifier_type: 'hwid',
      discord_id: '',
      note: i % 5 === 0 ? 'imported from luarmor' : '',
      status: 'active',
      auth_expire: i % 3 === 0 ? -1 : Math.floor(Date.now() / 1000) + 86_400 * 30,
      banned: 0,
      ban_reason: '',
      ban_expire: -1,
      total_executions: i % 100,
      total_resets: 0,
      last_reset: 0,
      key_days: -1,
    }));
    started = performance.now();
    const imported = await fetch(`${server.url}/api/v1/keys/api/keys/import`, {
      method: 'POST',
      headers: { 'x-api-key': importer.key, 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'luarmor', data: records }),
    });
    if (imported.status !== 201) throw new Error(`import: ${imported.status} ${await imported.text()}`);
    const importSeconds = seconds(started);

    return {
      dialect,
      keys: KEYS,
      seedSeconds: Number(seeded.toFixed(1)),
      bareSelectRows: selected,
      bareSelectSeconds: Number(bareSelectSeconds.toFixed(2)),
      exportSeconds: Number(exportSeconds.toFixed(2)),
      exportMB: Number((bytes / MB).toFixed(1)),
      exportToBareSelect: Number((exportSeconds / bareSelectSeconds).toFixed(2)),
      exportPeakRssGrowthMB: Number((growth / MB).toFixed(1)),
      exportPeakRssGrowthFromColdMB: Number(((peak - cold) / MB).toFixed(1)),
      // Sampled (every 100 ms) over the resident memory before the export: a short peak between samples is missed.
      exportAnonGrowthMB: Number(((sampledPeak.anon - fieldOf(settled, 'RssAnon') * 1024) / MB).toFixed(1)),
      exportFileGrowthMB: Number(((sampledPeak.file - fieldOf(settled, 'RssFile') * 1024) / MB).toFixed(1)),
      exportPeakThreads: sampledPeak.threads,
      generate10kIn10CallsSeconds: Number(generateSeconds.toFixed(2)),
      importLuarmor10kSeconds: Number(importSeconds.toFixed(2)),
      importToGenerate: Number((importSeconds / generateSeconds).toFixed(2)),
    };
  } catch (error) {
    // The server's warnings and errors (why an export was cut short, say) go before it is stopped.
    console.error(server.lines.filter((line) => !line.includes('"level":30')).join('\n'), server.stderr());
    throw error;
  } finally {
    sampled?.stop();
    await server.stop();
  }
}

for (const figures of await onEachDatabase('export', measure)) console.log(JSON.stringify(figures));
