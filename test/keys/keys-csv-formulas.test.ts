import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvLine, type ExportRecord } from '../../src/modules/keys/keys-export.ts';
import { parseImport } from '../../src/modules/keys/keys-import.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';
import { DAY_MS } from '../helpers/records.ts';
import { seedKeys } from './keys-data.fixtures.ts';

// Guarantee: the CSV export neutralises spreadsheet formulas (a cell beginning with =, +, -, @, tab or CR gets a
// leading '); importing a Keyward CSV takes exactly that ' off, so export → import stays exact. JSON is unchanged.
const t = useTestApp();

let counter = 0;
const uniqueKey = (tag: string) => `${tag}${process.pid}x${++counter}`.padEnd(12, '0');
const FORMULA_START = /^[=+\-@\t\r]/;

async function exported(s: SeededService, format: 'csv' | 'json') {
  const res = await t().app.inject({
    method: 'GET',
    url: `/api/v1/keys/api/keys/export?format=${format}`,
    headers: { 'x-api-key': s.serviceKey },
  });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** HWIDs planted by anonymous users through /keys/validate, and notes a seller (or a bad import) wrote. */
async function plantedKeys(s: SeededService) {
  const now = t().clock.now;
  const keys = { planted: uniqueKey('fpl'), noted: uniqueKey('fno'), dash: `-${uniqueKey('fda')}`, quoted: uniqueKey('fqu') };
  await seedKeys(t().ctx, s.id, [
    { key: keys.planted, type: 'generated', createdAt: now - 2 * DAY_MS, maxHwids: 4 },
    { key: keys.noted, type: 'generated', createdAt: now - DAY_MS, note: '=1+1' },
    { key: keys.dash, type: 'generated', createdAt: now - DAY_MS, note: '@SUM(A1:A9)' },
    { key: keys.quoted, type: 'active', createdAt: now - DAY_MS, hwids: ["'=already quoted"], note: "'+plain text" },
  ]);
  const hwids = ['=HYPERLINK("http://evil.example","x")', '+cmd /C calc!A0', '-2+3', '@SUM(1,2)'];
  for (const hwid of hwids) {
    const res = await call(
      t().app,
      'GET',
      `/api/v1/keys/validate?service=${s.identifier}&key=${keys.planted}&hwid=${encodeURIComponent(hwid)}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data?.valid ?? res.body.valid).toBe(true);
  }
  return { keys, hwids };
}

describe('CSV export neutralises spreadsheet formulas', () => {
  it('writes every cell that would start a formula with a leading quote, HWIDs planted through /keys/validate included', async () => {
    const s = await seedService(t().ctx);
    const { keys, hwids } = await plantedKeys(s);
    const csv = await exported(s, 'csv');
    const rows = parse(csv, { bom: true }) as string[][];
    for (const row of rows) for (const cell of row) expect(cell, cell).not.toMatch(FORMULA_START);
    const byKey = new Map(rows.slice(1).map((r) => [r[0]!.replace(/^'/, ''), r]));
    expect(byKey.get(keys.planted)![3]).toBe(`'${hwids.join('|')}`);
    expect(byKey.get(keys.noted)![4]).toBe("'=1+1");
    expect(byKey.get(keys.dash)![0]).toBe(`'${keys.dash}`);
    expect(byKey.get(keys.dash)![4]).toBe("'@SUM(A1:A9)");
    // A value that already began with a quote before a formula character gets one more, so the import can be exact.
    expect(byKey.get(keys.quoted)![3]).toBe("''=already quoted");
    // …and a quote before anything else is left alone.
    expect(byKey.get(keys.quoted)![4]).toBe("'+plain text".replace(/^'/, "''"));
  });

  it('imports its own CSV back exactly, and leaves the JSON export as it was', async () => {
    const s = await seedService(t().ctx);
    const { keys, hwids } = await plantedKeys(s);
    const csv = await exported(s, 'csv');
    const json = await exported(s, 'json');
    const records = JSON.parse(json) as Array<Record<string, unknown>>;
    const planted = records.find((r) => r.key === keys.planted)!;
    expect(planted.hwids).toEqual(hwids);
    expect(records.find((r) => r.key === keys.noted)!.note).toBe('=1+1');
    expect(records.find((r) => r.key === keys.quoted)!.note).toBe("'+plain text");

    const del = await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', {
      key: s.serviceKey,
      body: { action: 'delete', keys: Object.values(keys) },
    });
    expect(del.status).toBe(200);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/keys/import', {
      key: s.serviceKey,
      body: { format: 'keyward-csv', data: csv },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await exported(s, 'csv')).toBe(csv);
    expect(await exported(s, 'json')).toBe(json);
  });

  it('neutralises tab and carriage return starts too, and takes off only the quote it added', () => {
    const record = {
      type: 'generated',
      key: 'tabkey0001',
      status: 'active',
      note: '\tTAB',
      isPremium: false,
      noHwidValidation: false,
      maxHwids: 1,
      expiresAt: null,
      chatId: null,
      createdAt: '2026-11-22T10:00:00.000Z',
      expirationType: 'lifetime',
    } as unknown as ExportRecord;
    expect(csvLine(record)).toContain(",'\tTAB,");
    expect(csvLine({ ...record, note: '\rCR' } as ExportRecord)).toContain(`,"'\rCR",`);
    const header =
      'key,type,status,hwids,note,isPremium,noHwidValidation,maxHwids,expiresAt,chatId,executions,createdAt,activatedAt,lastUsedAt\r\n';
    const [parsed] = parseImport({ format: 'keyward-csv', data: header + "'-dash00001,generated,active,,'abc,false,false,1,,,0,,,\r\n" });
    expect(parsed!.key).toBe('-dash00001');
    expect(parsed!.note).toBe("'abc");
  });
});
