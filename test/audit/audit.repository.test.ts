import { describe, expect, it } from 'vitest';
import { listAudit, pruneAudit, recordAudit } from '../../src/modules/audit/audit.repository.ts';
import { SYSTEM_ACTOR } from '../../src/modules/audit/actor.ts';
import { useTestApp } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';

const get = useTestApp();

describe('audit repository', () => {
  it('records inside the caller’s transaction: a rolled-back change leaves no entry', async () => {
    const { ctx } = get();
    const service = await seedService(ctx);
    const at = ctx.clock();
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        await recordAudit(trx, SYSTEM_ACTOR, {
          action: 'key.delete',
          accountId: service.account.id,
          serviceId: service.id,
          target: 'k1',
          at,
        });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await ctx.db.transaction().execute((trx) =>
      recordAudit(trx, SYSTEM_ACTOR, {
        action: 'key.delete',
        accountId: service.account.id,
        serviceId: service.id,
        target: 'k2',
        details: { n: 1 },
        at,
      }),
    );
    const { rows, total } = await listAudit(ctx.db, { serviceId: service.id, action: 'key.delete' }, 10, 0);
    expect(total).toBe(1);
    expect(rows[0]).toMatchObject({ target: 'k2', actorKind: 'system', details: '{"n":1}', at });
  });

  it('prunes only entries older than the cutoff', async () => {
    const { ctx } = get();
    const service = await seedService(ctx);
    const base = { action: 'key.update' as const, accountId: service.account.id, serviceId: service.id, target: null };
    for (let i = 0; i < 5; i++) await recordAudit(ctx.db, SYSTEM_ACTOR, { ...base, at: 1000 + i });
    expect(await pruneAudit(ctx.db, 1003, 2)).toBe(3);
    const { rows } = await listAudit(ctx.db, { serviceId: service.id, action: 'key.update' }, 10, 0);
    expect(rows.map((r) => r.at)).toEqual([1004, 1003]);
  });
});
