import { sql } from 'kysely';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLog, type AppContext } from '../../src/context.ts';
import { createContext } from '../../src/modules/state.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { runDoctor } from '../helpers/doctor.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { seedService, type SeededService } from '../helpers/seed.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

/** Contract §11: `keyward doctor` prints one line per finding and exits 1 when any is an error. */
let database: TestDatabase;
let ctx: AppContext;
let service: SeededService;
let server: ServerProcess;
let port = 0;
/** A stand-in for what sits at a wrong BASE_URL: answers like Keyward, from behind a proxy, knowing no service. */
let impostor: Server;
let impostorUrl = '';

const doctor = (env: Record<string, string>) => runDoctor({ ...database.env, ...env });

async function listen(app: Server): Promise<number> {
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  return (app.address() as AddressInfo).port;
}

beforeAll(async () => {
  database = await createTestDatabase();
  ctx = await createContext({
    config: loadConfig({ KEYWARD_SECRET: TEST_SECRET, ...database.env }),
    database: database.handle,
    ownsDatabase: false,
    log: silentLog,
    role: 'cli',
  });
  service = await seedService(ctx);
  const probe = createServer();
  port = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  server = await startServerProcess({
    KEYWARD_SECRET: TEST_SECRET,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    ...database.env,
  });
  impostor = createServer((request, response) => {
    response.setHeader('x-request-id', 'not-this-one');
    response.setHeader('via', '1.1 Caddy');
    response.statusCode = request.url === '/healthz' ? 200 : 404;
    response.end(request.url === '/healthz' ? '{"status":"ok"}' : 'not found');
  });
  impostorUrl = `http://127.0.0.1:${await listen(impostor)}`;
});

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => impostor?.close(resolve));
  await ctx?.close();
  await database?.drop();
});

describe('keyward doctor', () => {
  it('exits 1 with a line naming a BASE_URL that does not answer', async () => {
    const closed = createServer();
    const nobody = `http://127.0.0.1:${await listen(closed)}`;
    await new Promise((resolve) => closed.close(resolve));
    const { code, lines } = await doctor({ BASE_URL: nobody });
    expect(code).toBe(1);
    expect(lines).toContain(
      `error  BASE_URL ${nobody} does not answer (ECONNREFUSED): buyers' loadstrings and links cannot reach this server`,
    );
    expect(lines.at(-1)).toMatch(/^\d+ error\(s\)/);
  });

  it('passes with no error when BASE_URL reaches this very server and the database is migrated', async () => {
    const { code, lines } = await doctor({ BASE_URL: `http://127.0.0.1:${port}` });
    expect(lines).toContain(`ok     BASE_URL http://127.0.0.1:${port} reaches this server`);
    expect(lines.some((line) => /^ok {5}database: .* answers and is migrated$/.test(line))).toBe(true);
    expect(lines.filter((line) => line.startsWith('error'))).toEqual([]);
    expect(code).toBe(0);
  });

  it('warns on PostgreSQL when autovacuum is off for the server or a key table, and not on SQLite', async () => {
    const warning = (lines: string[]) => lines.filter((line) => line.startsWith('warn') && line.includes('autovacuum'));
    if (!database.env.DATABASE_URL) {
      expect(warning((await doctor({ BASE_URL: `http://127.0.0.1:${port}` })).lines)).toEqual([]);
      return;
    }
    const { rows } = await sql<{ setting: string }>`select current_setting('autovacuum') as setting`.execute(ctx.db);
    if (rows[0]!.setting !== 'on') {
      // CI's PostgreSQL runs with autovacuum off.
      expect(warning((await doctor({ BASE_URL: `http://127.0.0.1:${port}` })).lines)).toEqual([
        "warn   database: PostgreSQL's autovacuum is off, so lookups of keys slow down as the tables grow; turn it on, or run ANALYZE after large imports",
      ]);
      return;
    }
    expect(warning((await doctor({ BASE_URL: `http://127.0.0.1:${port}` })).lines)).toEqual([]);
    await sql`alter table key_hwids set (autovacuum_enabled = false)`.execute(ctx.db);
    try {
      expect(warning((await doctor({ BASE_URL: `http://127.0.0.1:${port}` })).lines)).toEqual([
        'warn   database: autovacuum is off for key_hwids, so lookups of keys slow down as the tables grow; turn it on, or run ANALYZE after large imports',
      ]);
    } finally {
      await sql`alter table key_hwids reset (autovacuum_enabled)`.execute(ctx.db);
    }
  });

  it('tells another Keyward at BASE_URL from this one, and a proxy in front without TRUST_PROXY', async () => {
    const { code, lines } = await doctor({ BASE_URL: impostorUrl });
    expect(code).toBe(1);
    expect(lines).toContain(
      `error  BASE_URL ${impostorUrl} reaches a Keyward server that does not know this database's service "${service.identifier}": another server or database`,
    );
    expect(lines.some((line) => line.startsWith('error  TRUST_PROXY is not set but a proxy is in front'))).toBe(true);
  });

  it('names a service whose Discord bot cannot work because BASE_URL is not https, and a webhook switched on without a URL', async () => {
    const other = await seedService(ctx);
    await ctx.db
      .updateTable('services')
      .set({ chatInteractionsPublicKey: 'a'.repeat(64), webhookEnabled: 1, webhookUrl: null })
      .where('id', '=', other.id)
      .execute();
    const { code, lines } = await doctor({ BASE_URL: `http://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(
      lines.some((line) => line.startsWith(`error  service "`) && line.includes(`(${other.identifier}): the Discord bot needs an https`)),
    ).toBe(true);
    expect(lines.some((line) => line.includes(`(${other.identifier}): the Discord webhook is on but has no URL`))).toBe(true);
    await ctx.db.updateTable('services').set({ chatInteractionsPublicKey: null, webhookEnabled: 0 }).where('id', '=', other.id).execute();
  });

  it('reports settings the server would refuse as one error line', async () => {
    const { code, lines } = await doctor({ TRUST_PROXY: 'caddy', BASE_URL: `http://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(lines[1]).toMatch(/^error  settings: TRUST_PROXY: "caddy" is not an IP address/);
  });
});
