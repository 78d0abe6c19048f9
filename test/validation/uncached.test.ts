import { describe, expect, it } from 'vitest';
import { validateKey } from '../../src/modules/validation/validation.service.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

// A validation of a key no copy of which is cached (the traffic of many keys): it reads the key and answers, binds a free
// slot through the database, redeems a generated key, and never reads what a transaction on the same connection
// (SQLite has one) has not committed.
const t = useTestApp();

async function redeemedKey() {
  const s = await seedService(t().ctx);
  const [key] = await generateKeys(t().app, s.serviceKey);
  const res = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=pc-1`);
  expect(res.body.data.code).toBe('KEY_VALID');
  // Nothing cached: the next validation reads the key again.
  t().clock.advance(t().config.verdictCacheMs + 1);
  return { s, key: key! };
}

describe('validation of an uncached key', () => {
  it('answers the refusals it reads: another HWID, a banned HWID', async () => {
    const { s, key } = await redeemedKey();
    expect(await validateKey(t().ctx, s.id, { key, hwid: 'pc-2' })).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
    const banned = await call(t().app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'pc-1' } });
    expect(banned.status).toBeLessThan(300);
    expect(await validateKey(t().ctx, s.id, { key, hwid: 'pc-1' })).toMatchObject({ valid: false, code: 'HWID_BLACKLISTED' });
  });

  it('never reads what a transaction has not committed: the answer waits for it and sees its rollback', async () => {
    const { s, key } = await redeemedKey();
    let during: ReturnType<typeof validateKey> | undefined;
    await t()
      .ctx.db.transaction()
      .execute(async (trx) => {
        await trx.updateTable('activeKeys').set({ status: 'banned' }).where('key', '=', key).execute();
        during = validateKey(t().ctx, s.id, { key, hwid: 'pc-1' });
        throw new Error('roll back');
      })
      .catch((err: unknown) => expect(String(err)).toContain('roll back'));
    expect((await during!).code).toBe('KEY_VALID');
    expect(await t().ctx.db.selectFrom('activeKeys').select('status').where('key', '=', key).executeTakeFirstOrThrow()).toEqual({
      status: 'active',
    });
  });

  it('redeems a generated key the lookup did not find among the active keys, and refuses an unknown one', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    expect(await validateKey(t().ctx, s.id, { key, hwid: 'pc-9' })).toMatchObject({ valid: true, code: 'KEY_VALID' });
    const bound = await t().ctx.db.selectFrom('keyHwids').select('hwid').where('key', '=', key!).execute();
    expect(bound).toEqual([{ hwid: 'pc-9' }]);
    expect(await validateKey(t().ctx, s.id, { key: `${key}X`, hwid: 'pc-9' })).toMatchObject({ valid: false, code: 'KEY_INCORRECT' });
  });

  it('binds a second HWID through the database when the key has a free slot', async () => {
    const { s, key } = await redeemedKey();
    const limited = await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, maxHwids: 2 } });
    expect(limited.status).toBe(200);
    t().clock.advance(t().config.verdictCacheMs + 1);
    expect(await validateKey(t().ctx, s.id, { key, hwid: 'pc-2' })).toMatchObject({ code: 'KEY_VALID' });
    const row = await t().ctx.db.selectFrom('activeKeys').select('hwidCount').where('key', '=', key).executeTakeFirstOrThrow();
    expect(row.hwidCount).toBe(2);
  });

  it('answers at once on SQLite, whose lookup is a call in this process, and through a promise on PostgreSQL', async () => {
    const { s, key } = await redeemedKey();
    const answer = validateKey(t().ctx, s.id, { key, hwid: 'pc-1' });
    expect(answer instanceof Promise).toBe(t().ctx.dialect === 'postgres');
    expect(await answer).toMatchObject({ valid: true, code: 'KEY_VALID' });
    t().clock.advance(t().config.verdictCacheMs + 1);
    // A refusal read at once is answered at once too.
    const refused = validateKey(t().ctx, s.id, { key, hwid: 'pc-2' });
    expect(refused instanceof Promise).toBe(t().ctx.dialect === 'postgres');
    expect(await refused).toMatchObject({ valid: false, code: 'KEY_HWID_LOCKED' });
  });

  it("knows a key's second HWID, and forgets HWIDs replaced by an edit or cleared by a reset", async () => {
    const { s, key } = await redeemedKey();
    const uncached = async (hwid: string) => {
      t().clock.advance(t().config.verdictCacheMs + 1);
      return (await validateKey(t().ctx, s.id, { key, hwid })).code;
    };
    const hwidCount = async () =>
      (await t().ctx.db.selectFrom('activeKeys').select('hwidCount').where('key', '=', key).executeTakeFirstOrThrow()).hwidCount;
    expect((await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, maxHwids: 2 } })).status).toBe(200);
    expect(await uncached('pc-2')).toBe('KEY_VALID');
    // Both are bound now: neither takes a slot again.
    expect(await uncached('pc-2')).toBe('KEY_VALID');
    expect(await uncached('pc-1')).toBe('KEY_VALID');
    expect(await hwidCount()).toBe(2);
    expect(await uncached('pc-3')).toBe('KEY_HWID_LOCKED');

    const edited = await call(t().app, 'PUT', '/api/v1/keys/api/key', { key: s.serviceKey, body: { key, hwid: 'pc-3' } });
    expect(edited.status).toBe(200);
    expect(await uncached('pc-3')).toBe('KEY_VALID');
    expect(await uncached('pc-4')).toBe('KEY_VALID'); // the second slot is free again
    expect(await uncached('pc-1')).toBe('KEY_HWID_LOCKED');
    expect(await uncached('pc-2')).toBe('KEY_HWID_LOCKED');

    const reset = await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', {
      key: s.serviceKey,
      body: { action: 'resetHwid', keys: [key] },
    });
    expect(reset.status).toBe(200);
    expect(await hwidCount()).toBe(0);
    expect(await uncached('pc-5')).toBe('KEY_VALID');
    expect(await uncached('pc-3')).toBe('KEY_VALID');
    expect(await uncached('pc-4')).toBe('KEY_HWID_LOCKED');
  });
});
