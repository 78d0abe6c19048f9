import { CompiledQuery, sql, type KyselyPlugin, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import { describe, expect, it } from 'vitest';
import { countKeys, pageOfKeys, type KeyFilter } from '../../src/modules/keys/keys-list.repository.ts';
import { testDialect } from '../helpers/database.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, type SeededService } from '../helpers/seed.ts';
import { DAY_MS, serviceSeeder } from '../helpers/records.ts';
import { seedKeys, type SeedKey } from './keys-data.fixtures.ts';

// Contract §7.2 `search`: a case-insensitive substring of key, note, any HWID or chat id, `%` and `_` literal.
// Terms of 3 characters or more go through the trigram indexes of migration 0012 (pg_trgm, FTS5 trigram), shorter
// ones read the rows: both must give the same answers, and the index must follow every change to a key.
const t = useTestApp();
const newService = serviceSeeder(t);

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, s: SeededService, body?: unknown) =>
  call(t().app, method, `/api/v1${path}`, { key: s.serviceKey, body });
const PREFIX_LENGTH = 4;
let services = 0;

/** Searches and answers the matching keys (prefix dropped), newest first, after checking total agrees. */
async function search(s: SeededService, term: string, extra: Record<string, string> = {}) {
  const res = await api('GET', `/keys/api/keys?${new URLSearchParams({ search: term, ...extra })}`, s);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const keys = (res.body.data.items as Array<{ key: string }>).map((i) => i.key.slice(PREFIX_LENGTH));
  expect(res.body.data.total).toBe(keys.length);
  return keys;
}

/** Five keys, oldest first; every key string carries a service prefix of its own ("Q" and 3 digits). */
async function searchService() {
  const s = await newService();
  const now = t().clock.now;
  const prefix = `Q${String(++services).padStart(PREFIX_LENGTH - 1, '0')}`;
  const keys: SeedKey[] = [
    {
      key: 'ACTIVEalpha00001',
      type: 'active',
      createdAt: now - 5 * DAY_MS,
      note: 'Gift 50%_OFF',
      hwids: ['HWID-Red-1', 'hwid-blue-2'],
      chatId: '111222333444555666',
    },
    { key: 'ACTIVEbeta000002', type: 'active', createdAt: now - 4 * DAY_MS, note: 'reseller', hwids: ['HW_X'], status: 'banned' },
    { key: 'ACTIVEgamma00003', type: 'active', createdAt: now - 3 * DAY_MS, note: 'say "hi" now' },
    { key: 'GENERATEDdelta04', type: 'generated', createdAt: now - 2 * DAY_MS, note: '50% off', chatId: '999888777666555444' },
    { key: 'GENERATEDeps0005', type: 'generated', createdAt: now - DAY_MS, note: 'RESELLER batch', status: 'banned' },
  ];
  await seedKeys(
    t().ctx,
    s.id,
    keys.map((k) => ({ ...k, key: prefix + k.key })),
  );
  return { s, key: (suffix: string) => prefix + suffix };
}

describe('GET /keys/api/keys?search=', () => {
  it.each([
    // 1 and 2 characters: no trigram, the rows are read.
    ['z', []],
    ['%', ['GENERATEDdelta04', 'ACTIVEalpha00001']],
    ['_', ['ACTIVEbeta000002', 'ACTIVEalpha00001']],
    ['0%', ['GENERATEDdelta04', 'ACTIVEalpha00001']],
    ['TA', ['GENERATEDdelta04', 'ACTIVEbeta000002']],
    ['"h', ['ACTIVEgamma00003']],
    ['Ed', ['GENERATEDeps0005', 'GENERATEDdelta04', 'ACTIVEalpha00001']],
    ['-1', ['ACTIVEalpha00001']],
    // The fields' separator in search_text (migration 0013) matches nothing: no term spans two fields.
    ['\u0001', []],
    ['1\u0001', []],
    // 3 characters and more: through the trigram index.
    ['mma', ['ACTIVEgamma00003']],
    ['ALPHA0', ['ACTIVEalpha00001']],
    ['generatedDELTA', ['GENERATEDdelta04']],
    ['RED-1', ['ACTIVEalpha00001']],
    ['BLUE-2', ['ACTIVEalpha00001']],
    ['hw_x', ['ACTIVEbeta000002']],
    ['hw%', []],
    ['%_of', ['ACTIVEalpha00001']],
    ['0% o', ['GENERATEDdelta04']],
    ['ReSeLLeR', ['GENERATEDeps0005', 'ACTIVEbeta000002']],
    ['22233344', ['ACTIVEalpha00001']],
    ['8887776', ['GENERATEDdelta04']],
    ['"hi"', ['ACTIVEgamma00003']],
    ['hi" now', ['ACTIVEgamma00003']],
    ['missing', []],
  ])('%j finds exactly %j', async (term, expected) => {
    const { s } = await searchService();
    expect(await search(s, term)).toEqual(expected);
  });

  it('combines with the other filters, the count included', async () => {
    const { s } = await searchService();
    expect(await search(s, 'reseller', { status: 'banned' })).toEqual(['GENERATEDeps0005', 'ACTIVEbeta000002']);
    expect(await search(s, 'reseller', { status: 'banned', type: 'active' })).toEqual(['ACTIVEbeta000002']);
    expect(await search(s, 'reseller', { status: 'active' })).toEqual([]);
    expect(await search(s, 'hwid-', { bound: 'true' })).toEqual(['ACTIVEalpha00001']);
    const page = await api(
      'GET',
      `/keys/api/keys?${new URLSearchParams({ search: 'reseller', sort: 'createdAt', order: 'asc', limit: '1' })}`,
      s,
    );
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ total: 2, totalPages: 2, items: [{ type: 'active', note: 'reseller', status: 'banned' }] });
  });

  it('answers the exact total of a 1–2 character search on every page, full, last, or past the end', async () => {
    const { s } = await searchService();
    // Every key holds '0' (in its service prefix); the count is skipped only where the page itself tells it.
    for (const [limit, page, items] of [
      [2, 1, 2],
      [2, 2, 2],
      [2, 3, 1],
      [2, 4, 0],
      [5, 1, 5],
      [10, 1, 5],
      [10, 2, 0],
    ]) {
      const res = await api('GET', `/keys/api/keys?${new URLSearchParams({ search: '0', limit: String(limit), page: String(page) })}`, s);
      expect(res.status).toBe(200);
      expect({ limit, page, items: res.body.data.items.length, total: res.body.data.total }).toEqual({ limit, page, items, total: 5 });
    }
    const none = await api('GET', `/keys/api/keys?${new URLSearchParams({ search: 'z', page: '3' })}`, s);
    expect(none.body.data).toMatchObject({ items: [], total: 0 });
  });

  it("never finds another service's keys", async () => {
    const { s } = await searchService();
    const other = await searchService();
    expect(await search(s, 'reseller')).toEqual(['GENERATEDeps0005', 'ACTIVEbeta000002']);
    expect(await search(other.s, 'reseller')).toEqual(['GENERATEDeps0005', 'ACTIVEbeta000002']);
    expect(await search(s, other.key('ACTIVEalpha'))).toEqual([]);
  });

  it('follows edits of note, chat id and HWIDs, deletes, resets and bulk notes', async () => {
    const { s, key } = await searchService();
    const gamma = key('ACTIVEgamma00003');
    expect(
      (await api('PUT', '/keys/api/key', s, { key: gamma, note: 'Renamed Label', chatId: '424242424242424242', hwid: 'NEW-PC-77' })).status,
    ).toBe(200);
    expect(await search(s, 'say "hi"')).toEqual([]);
    expect(await search(s, 'named lab')).toEqual(['ACTIVEgamma00003']);
    expect(await search(s, '4242424')).toEqual(['ACTIVEgamma00003']);
    expect(await search(s, 'new-pc')).toEqual(['ACTIVEgamma00003']);

    expect((await api('POST', '/keys/reset-hwid', s, { key: key('ACTIVEalpha00001') })).status).toBe(200);
    expect(await search(s, 'red-1')).toEqual([]);
    expect(await search(s, 'blue')).toEqual([]);

    expect((await api('PUT', '/keys/api/generated-key', s, { key: key('GENERATEDdelta04'), note: 'spring sale' })).status).toBe(200);
    expect(await search(s, '50% off')).toEqual([]);
    expect(await search(s, 'spring')).toEqual(['GENERATEDdelta04']);

    const bulk = await api('POST', '/keys/api/keys/bulk', s, {
      action: 'setNote',
      keys: [key('ACTIVEbeta000002'), key('GENERATEDeps0005')],
      note: 'wholesale',
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(await search(s, 'reseller')).toEqual([]);
    expect(await search(s, 'WHOLESALE')).toEqual(['GENERATEDeps0005', 'ACTIVEbeta000002']);

    expect((await api('DELETE', `/keys/api/key?${new URLSearchParams({ key: gamma })}`, s)).status).toBe(200);
    expect(await search(s, 'named lab')).toEqual([]);
    expect(await search(s, 'new-pc')).toEqual([]);
  });

  // Terms of 1–2 characters read each key's search_text (migration 0013), kept by triggers: every write must reach it.
  // 'j', 'k', 'z' and '42' appear nowhere in the seeded keys.
  it('keeps 1–2 character searches in step with edits, HWID binds and resets, bulk notes, redeems, imports and deletes', async () => {
    const { s, key } = await searchService();
    const gamma = key('ACTIVEgamma00003');
    expect(await search(s, 'z')).toEqual([]);
    expect(
      (await api('PUT', '/keys/api/key', s, { key: gamma, note: 'Jk label', chatId: '424242424242424242', hwid: 'Z-PC' })).status,
    ).toBe(200);
    expect(await search(s, '"h')).toEqual([]);
    expect(await search(s, 'jK')).toEqual(['ACTIVEgamma00003']);
    expect(await search(s, '42')).toEqual(['ACTIVEgamma00003']);
    expect(await search(s, 'Z')).toEqual(['ACTIVEgamma00003']);

    expect((await api('POST', '/keys/reset-hwid', s, { key: gamma })).status).toBe(200);
    expect(await search(s, 'z')).toEqual([]);
    expect(await search(s, '-1')).toEqual(['ACTIVEalpha00001']);
    expect((await api('POST', '/keys/reset-hwid', s, { key: key('ACTIVEalpha00001') })).status).toBe(200);
    expect(await search(s, '-1')).toEqual([]);

    const delta = key('GENERATEDdelta04');
    const validated = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key: delta, hwid: 'ZZ-PC-9' })}`,
    );
    expect(validated.body.data.code).toBe('KEY_VALID');
    expect(await search(s, 'zz', { type: 'active' })).toEqual(['GENERATEDdelta04']);
    expect(await search(s, 'zz', { type: 'generated' })).toEqual([]);

    const bulk = await api('POST', '/keys/api/keys/bulk', s, {
      action: 'setNote',
      keys: [key('ACTIVEbeta000002'), key('GENERATEDeps0005')],
      note: 'kiwi',
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(await search(s, 'k')).toEqual(['GENERATEDeps0005', 'ACTIVEgamma00003', 'ACTIVEbeta000002']);
    expect(await search(s, 'k', { status: 'banned' })).toEqual(['GENERATEDeps0005', 'ACTIVEbeta000002']);

    expect((await api('PUT', '/keys/api/generated-key', s, { key: key('GENERATEDeps0005'), note: 'plain' })).status).toBe(200);
    expect(await search(s, 'kI')).toEqual(['ACTIVEbeta000002']);

    expect((await api('DELETE', `/keys/api/key?${new URLSearchParams({ key: gamma })}`, s)).status).toBe(200);
    expect(await search(s, 'jk')).toEqual([]);
    expect(await search(s, '42')).toEqual([]);

    const imported = key('IMPORTEDzeta0006');
    const base = { status: 'active', last_reset: 0, key_days: -1, ban_reason: '', ban_expire: -1, identifier_type: 'hwid', banned: 0 };
    const record = {
      ...base,
      user_key: imported,
      identifier: 'JZ-HWID',
      discord_id: '',
      note: 'J',
      auth_expire: -1,
      total_executions: 0,
      total_resets: 0,
    };
    const res = await api('POST', '/keys/api/keys/import', s, { format: 'luarmor', data: [record] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await search(s, 'jz')).toEqual(['IMPORTEDzeta0006']);
    expect(await search(s, 'j')).toEqual(['IMPORTEDzeta0006']);
  });

  it('finds a generated key by its new HWID once it is redeemed', async () => {
    const { s, key } = await searchService();
    const delta = key('GENERATEDdelta04');
    const validated = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?${new URLSearchParams({ service: s.identifier, key: delta, hwid: 'Redeemer-PC-9' })}`,
    );
    expect(validated.body.data.code).toBe('KEY_VALID');
    expect(await search(s, 'redeemer-pc', { type: 'active' })).toEqual(['GENERATEDdelta04']);
    expect(await search(s, '50% off', { type: 'generated' })).toEqual([]);
    expect(await search(s, '50% off')).toEqual(['GENERATEDdelta04']);
  });

  // Migration 0036: on SQLite a 1–2 character term is tested on the (service_id, search_text) index, and only a
  // matching key's row is read. Through the rows, a million keys took twice as long (docs/benchmarks.md).
  it('on SQLite, tests a 1–2 character term on the search index, with statistics or without', async () => {
    if (testDialect() !== 'sqlite') return; // PostgreSQL reads the rows: migration 0036 adds no index there.
    const { s } = await searchService();
    const db = t().ctx.db;
    const queries: CompiledQuery[] = [];
    // Subqueries pass through a plugin too: a query counts once it has run (its result comes back by its id).
    const compiled = new Map<unknown, CompiledQuery>();
    const capture: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        compiled.set(queryId, db.getExecutor().compileQuery(node as RootOperationNode, queryId));
        return node as RootOperationNode;
      },
      transformResult: async ({ result, queryId }) => {
        queries.push(compiled.get(queryId)!);
        return result as QueryResult<UnknownRow>;
      },
    };
    const plansOfShortSearch = async () => {
      queries.length = 0;
      const filter: KeyFilter = { type: 'all', search: 'Zz', now: t().clock.now };
      const captured = db.withPlugin(capture);
      expect(await pageOfKeys(captured, s.id, filter, { sort: 'createdAt', order: 'desc' }, 100, 0)).toEqual([]);
      expect(await countKeys(captured, s.id, filter)).toBe(0);
      expect(queries).toHaveLength(3);
      const plans = [];
      for (const query of queries) {
        const { rows } = await db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
        );
        plans.push(rows.map((r) => r.detail).filter((d) => /_keys\b/.test(d)));
      }
      return plans.flat();
    };
    const expected = [
      expect.stringMatching(/^SEARCH active_keys USING INDEX active_keys_service_search_text_idx /),
      expect.stringMatching(/^SEARCH generated_keys USING INDEX generated_keys_service_search_text_idx /),
      expect.stringMatching(/^SEARCH active_keys USING COVERING INDEX active_keys_service_search_text_idx /),
      expect.stringMatching(/^SEARCH generated_keys USING COVERING INDEX generated_keys_service_search_text_idx /),
    ];
    // The product never runs ANALYZE on SQLite, so a seller's database plans without statistics.
    expect(await plansOfShortSearch()).toEqual(expected);
    // With statistics (the benchmark's ANALYZE), SQLite chose the service's key index by itself and read every row;
    // the page names this index instead. (A few keys' statistics would otherwise choose a scan of the table.)
    await sql`ANALYZE`.execute(db);
    expect(await plansOfShortSearch()).toEqual(expected);
  });
});
