/**
 * npx tsx bench/memory.ts — peak memory of a 40 MB script upload and its fetch.
 *
 * A real server process (src/server.ts) on SQLite, and on PostgreSQL when it answers; this process is
 * only the client, so its own copies of the body do not count. The figure is the growth of the
 * server's peak RSS (VmHWM in /proc/<pid>/status) from after a warm-up to after the upload and after
 * the fetch, as a multiple of the script size. The target is at most 3x.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { migrate, type DbHandle } from '../src/db/database.ts';
import { loadConfig } from '../src/config.ts';
import { silentLog } from '../src/context.ts';
import { createContext } from '../src/modules/state.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { startServerProcess } from '../test/helpers/server-process.ts';
import { onEachDatabase } from './databases.ts';

const SIZE = 41_943_040;
const SECRET = 'bench-secret-0123456789abcdef';
const MB = 1024 * 1024;

function peakRssBytes(pid: number): { hwm: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { hwm: field('VmHWM'), rss: field('VmRSS') };
}

/** Lua-looking ASCII of exactly SIZE bytes, with newlines and quotes so the JSON carries escapes. */
function scriptOfSize(size: number): string {
  const line = 'local value = "padding-padding-padding" -- filler line of a large script\n';
  return line.repeat(Math.ceil(size / line.length)).slice(0, size - 12) + '\nprint("ok")';
}

async function seed(handle: DbHandle) {
  await migrate(handle.db);
  const ctx = await createContext({
    config: loadConfig({ KEYWARD_SECRET: SECRET, DATA_DIR: tmpdir() }),
    database: handle,
    ownsDatabase: false,
    log: silentLog,
    role: 'cli',
  });
  const account = await createAccount(ctx, {
    username: `bench${randomBytes(3).toString('hex')}`,
    password: 'bench-password-123',
    role: 'user',
  });
  const service = await createService(ctx, account.id, { name: 'memory bench' });
  await ctx.close();
  return { serviceKey: ctx.sealer.open(service.apiKeySealed) };
}

async function api(url: string, key: string, method: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { data: never };
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json.data as Record<string, unknown>;
}

async function fetchAll(url: string): Promise<{ bytes: number; sha: string }> {
  const response = await fetch(url);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of response.body!) {
    bytes += (chunk as Uint8Array).length;
    hash.update(chunk as Uint8Array);
  }
  return { bytes, sha: hash.digest('hex') };
}

async function run(label: 'sqlite' | 'postgres', env: Record<string, string>, handle: DbHandle) {
  const { serviceKey } = await seed(handle);
  const server = await startServerProcess({
    ...env,
    KEYWARD_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_API_PER_MINUTE: '0',
    RATE_LIMIT_CLIENT_PER_MINUTE: '0',
  });
  const pid = server.child.pid!;
  try {
    const base = server.url;
    const generated = await api(`${base}/api/v1/keys/api/generate`, serviceKey, 'POST', { expirationType: 'lifetime' });
    const key = (generated.keys as Array<{ key: string }>)[0]!.key;
    // Warm-up: every code path once with a small script, so the baseline includes compiled code and pools.
    const warm = await api(`${base}/api/v1/vss/api/scripts`, serviceKey, 'POST', { name: 'warm', code: scriptOfSize(2 * MB) });
    await fetchAll(`${base}/api/v1/vss/fetch/${String(warm.id)}?key=${key}&hwid=bench`);
    await api(`${base}/api/v1/vss/api/scripts/warm`, serviceKey, 'DELETE');
    await new Promise((r) => setTimeout(r, 500));
    const baseline = peakRssBytes(pid);

    const code = scriptOfSize(SIZE);
    const expectedSha = createHash('sha256').update(code).digest('hex');
    const body = Buffer.from(JSON.stringify({ name: 'bench-40mb', code }));
    const started = Date.now();
    const response = await fetch(`${base}/api/v1/vss/api/scripts`, {
      method: 'POST',
      headers: { 'x-api-key': serviceKey, 'content-type': 'application/json' },
      body,
    });
    const created = (await response.json()) as { data: { id: string; size: number } };
    if (response.status !== 201 || created.data.size !== SIZE)
      throw new Error(`upload failed: ${response.status} ${JSON.stringify(created)}`);
    const uploadMs = Date.now() - started;
    const afterUpload = peakRssBytes(pid);

    const fetchStarted = Date.now();
    const fetched = await fetchAll(`${base}/api/v1/vss/fetch/${created.data.id}?key=${key}&hwid=bench`);
    if (fetched.bytes !== SIZE || fetched.sha !== expectedSha)
      throw new Error(`fetch returned ${fetched.bytes} bytes that differ from the upload`);
    const fetchMs = Date.now() - fetchStarted;
    const afterFetch = peakRssBytes(pid);

    const growth = afterFetch.hwm - baseline.hwm;
    const figures = {
      dialect: label,
      bodyMB: +(body.length / MB).toFixed(1),
      baselinePeakMB: +(baseline.hwm / MB).toFixed(1),
      uploadPeakGrowthMB: +((afterUpload.hwm - baseline.hwm) / MB).toFixed(1),
      totalPeakGrowthMB: +(growth / MB).toFixed(1),
      ratioToScriptSize: +(growth / SIZE).toFixed(2),
      uploadMs,
      fetchMs,
    };
    console.log(JSON.stringify(figures));
    return figures;
  } finally {
    await server.stop();
  }
}

async function main() {
  const results = await onEachDatabase('mem', run);
  const worst = Math.max(...results.map((r) => r.ratioToScriptSize));
  console.log(`peak RSS growth: at most ${worst}x the script size (target: at most 3x)`);
  if (worst > 3) process.exitCode = 1;
}

await main();
