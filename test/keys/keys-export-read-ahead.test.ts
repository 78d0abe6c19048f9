import { SelectQueryNode, TableNode, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { EXPORT_BATCH, exportKeys, type ExportRecord } from '../../src/modules/keys/keys-export.ts';
import { useTestApp } from '../helpers/app.ts';
import { serviceSeeder } from '../helpers/records.ts';
import { seedKeys, type SeedKey } from './keys-data.fixtures.ts';

// The export reads the next batch of keys while the one before it is turned into bytes (src/modules/keys/keys-export.ts).
const t = useTestApp();
const newService = serviceSeeder(t);

/** The tables of the key selects the export sends, in the order it sends them (seen as each query starts). */
function watched() {
  const reads: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      const from = SelectQueryNode.is(node) ? node.from?.froms[0] : undefined;
      if (from && TableNode.is(from)) reads.push(from.table.identifier.name);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { db: t().ctx.db.withPlugin(plugin), reads };
}

describe('the key export reads ahead', () => {
  it('asks for the next batch before the caller takes this one, and still gives every key once, in order, with its HWIDs', async () => {
    const s = await newService();
    const now = t().clock.now;
    // Two and a half batches of active keys (every third bound), and more than a batch of generated ones.
    const keys: SeedKey[] = [
      ...Array.from({ length: EXPORT_BATCH * 2.5 }, (_, i) => ({
        key: `RA${String(i).padStart(6, '0')}`,
        type: 'active' as const,
        createdAt: now,
        hwids: i % 3 === 0 ? [`hw-${i}`] : [],
      })),
      ...Array.from({ length: EXPORT_BATCH * 1.2 }, (_, i) => ({
        key: `RG${String(i).padStart(6, '0')}`,
        type: 'generated' as const,
        createdAt: now,
      })),
    ];
    await seedKeys(t().ctx, s.id, keys);

    const { db, reads } = watched();
    const batches = exportKeys(db, s.id, { type: 'all', now });
    const first = await batches.next();
    expect((first.value as ExportRecord[]).length).toBe(EXPORT_BATCH);
    // The first batch, its HWIDs, and already the second batch.
    expect(reads.filter((table) => table === 'active_keys')).toHaveLength(2);

    const records = [...(first.value as ExportRecord[])];
    for await (const batch of batches) records.push(...batch);
    expect(records.map((r) => r.key)).toEqual(keys.map((k) => k.key));
    expect(records.map((r) => r.type)).toEqual(keys.map((k) => k.type));
    const hwidsOf = (r: ExportRecord) => (r.type === 'active' ? r.hwids : []);
    expect(records.map(hwidsOf)).toEqual(keys.map((k) => k.hwids ?? []));
    // Each batch read once: three of active keys (the last one short), two of generated ones.
    expect(reads.filter((table) => table === 'active_keys')).toHaveLength(3);
    expect(reads.filter((table) => table === 'generated_keys')).toHaveLength(2);
  });

  it('stops reading when the caller stops taking batches', async () => {
    const s = await newService();
    const now = t().clock.now;
    await seedKeys(
      t().ctx,
      s.id,
      Array.from({ length: EXPORT_BATCH * 3.5 }, (_, i) => ({
        key: `RS${String(i).padStart(6, '0')}`,
        type: 'generated' as const,
        createdAt: now,
      })),
    );
    const { db, reads } = watched();
    const batches = exportKeys(db, s.id, { type: 'generated', now });
    await batches.next();
    await batches.return(undefined);
    // The batch taken and the one read ahead; nothing after the caller left.
    expect(reads.filter((table) => table === 'generated_keys')).toHaveLength(2);
  });
});
