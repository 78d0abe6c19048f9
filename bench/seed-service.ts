import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/db/database.ts';
import { silentLog } from '../src/context.ts';
import { createContext } from '../src/modules/state.ts';
import { createAccount } from '../src/modules/accounts/accounts.service.ts';
import { createService } from '../src/modules/services/services.service.ts';
import { seedBoundKeys, seedGeneratedKeys } from './seed-traffic.ts';

/**
 * A bench target's database before its server starts (bench/run.ts, bench/cpu-target.ts): migrated, with an account and
 * a service; for `cold`, `coldKeys` bound keys; for `redeem`, `redemptions` generated keys beside them.
 */
export async function seedBenchService(
  env: Record<string, string>,
  what: string,
  counts: { coldKeys: number; redemptions: number },
): Promise<{ identifier: string; serviceKey: string }> {
  const config = loadConfig(env);
  const handle = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(handle.db);
  const ctx = await createContext({ config, database: handle, ownsDatabase: true, log: silentLog, role: 'cli' });
  try {
    const account = await createAccount(ctx, { username: `bench${randomBytes(4).toString('hex')}`, password: 'bench password 1' });
    const service = await createService(ctx, account.id, { name: 'bench' });
    if (what === 'cold' || what === 'redeem') await seedBoundKeys(handle, service.id, counts.coldKeys);
    // A service that sells has buyers: its redemptions land in a table of active keys, not an empty one. (This
    // machine's PostgreSQL runs without autovacuum, so the seed's ANALYZE is all the statistics it gets; redeeming into
    // an empty table left the key triggers' lookups planned as sequential scans for the whole run.)
    if (what === 'redeem') await seedGeneratedKeys(handle, service.id, counts.redemptions);
    return { identifier: service.identifier, serviceKey: ctx.sealer.open(service.apiKeySealed) };
  } finally {
    await ctx.close();
  }
}
