/**
 * What the lastUsedAt flush (src/modules/validation/key-touches.ts) costs per key: KEYS bound keys (BENCH_COLD_LAST_USED
 * says when they were last used, bench/seed-traffic.ts), then ROUNDS flushes of TOUCHES of them picked at random (no key
 * twice in the run, so each flush meets keys as they were seeded), each timed alone. The flush is a few statements run one after another, so its wall time is the database's work.
 *   npx tsx bench/flush-cost.ts                      # SQLite, in a temporary folder
 *   DATABASE_URL=postgres://…/empty npx tsx bench/flush-cost.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { KeyTouches } from '../src/modules/validation/key-touches.ts';
import { coldKey, seedBoundKeys } from './seed-traffic.ts';

const KEYS = Number(process.env.KEYS ?? 50_000);
const TOUCHES = Number(process.env.TOUCHES ?? 8_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const dir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'kw-flush-'));
const handle = openDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, dataDir: dir ?? '' });
try {
  await migrate(handle.db);
  const config = loadConfig({ KEYWARD_SECRET: 'bench-secret-0123456789abcdef' });
  const app = await buildApp({ config, database: handle, logger: false });
  await app.ready();
  const account = await createAccount(app.ctx, { username: `flush${Date.now()}`, password: 'a long bench password', role: 'user' });
  const owner = (await createService(app.ctx, account.id, { name: 'flush' })).id;
  await seedBoundKeys(handle, owner, KEYS);
  if (TOUCHES * ROUNDS > KEYS) throw new Error('TOUCHES × ROUNDS must not pass KEYS: no key is touched twice');
  const order = Array.from({ length: KEYS }, (_, i) => i + 1);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const perKeyUs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const touches = new KeyTouches();
    const at = Date.now();
    for (let i = 0; i < TOUCHES; i++) touches.touch(owner, coldKey(order[round * TOUCHES + i]!), at + i);
    const keys = touches.size;
    const t0 = performance.now();
    await touches.flush(handle.db, handle.dialect);
    perKeyUs.push(((performance.now() - t0) * 1000) / keys);
  }
  perKeyUs.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      dialect: handle.dialect,
      keys: KEYS,
      touches: TOUCHES,
      lastUsed: process.env.BENCH_COLD_LAST_USED ?? 'bound',
      medianUsPerKey: Number(perKeyUs[Math.floor(ROUNDS / 2)]!.toFixed(1)),
      roundsUsPerKey: perKeyUs.map((v) => Number(v.toFixed(1))),
    }),
  );
} finally {
  await handle.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
