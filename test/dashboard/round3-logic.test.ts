import { describe, expect, it } from 'vitest';
import { detectImport } from '../../web/src/keys/importFormat.ts';
import { describeActor, describeAudit, shortKey } from '../../web/src/audit/describe.ts';

describe('import detects the format itself (contract §15)', () => {
  const csv =
    'key,type,status,hwids,note,isPremium,noHwidValidation,maxHwids,expiresAt,chatId,executions,createdAt,activatedAt,lastUsedAt\nAAAA1111,generated,active,,,false,false,1,,,0,2026-01-01T00:00:00.000Z,,\n';
  it('a Keyward CSV export, with or without a byte-order mark', () => {
    expect(detectImport(csv)).toMatchObject({ format: 'keyward-csv', data: csv, records: 1 });
    expect(detectImport(`\uFEFF${csv}`)).toMatchObject({ format: 'keyward-csv', records: 1 });
  });
  it('a Keyward JSON export, a Luarmor array and Luarmor’s { users: [...] }', () => {
    const keyward = [{ key: 'AAAA1111', type: 'generated' }];
    expect(detectImport(JSON.stringify(keyward))).toEqual({
      format: 'keyward-json',
      data: keyward,
      records: 1,
      label: 'Keyward export (JSON)',
    });
    const users = [{ user_key: 'abcdefgh', identifier: '' }, { user_key: 'ijklmnop' }];
    expect(detectImport(JSON.stringify(users))).toMatchObject({ format: 'luarmor', data: users, records: 2 });
    expect(detectImport(JSON.stringify({ success: true, users }))).toMatchObject({ format: 'luarmor', data: users, records: 2 });
  });
  it('says what is wrong with anything else, in words', () => {
    expect(detectImport('')).toEqual({ error: 'Paste the export or choose a file first.' });
    expect(detectImport('hello,world')).toMatchObject({ error: expect.stringMatching(/not a Keyward CSV export/) });
    expect(detectImport('[')).toEqual({ error: 'This is neither valid JSON nor a Keyward CSV export.' });
    expect(detectImport('[]')).toEqual({ error: 'The list holds no records.' });
    expect(detectImport('{"data": []}')).toMatchObject({ error: expect.stringMatching(/under "users"/) });
    expect(detectImport('[{"id": 1}]')).toMatchObject({ error: expect.stringMatching(/neither "key"/) });
  });
  it('a chosen format is kept, not guessed over', () => {
    expect(detectImport('[{"user_key":"abcdefgh"}]', 'keyward-json')).toMatchObject({ format: 'keyward-json' });
  });
});

describe('the audit log reads as sentences (contract §15)', () => {
  const session = { kind: 'session', accountId: 'me' };
  it('names the key a row button touched, shortened, and who did it', () => {
    const key = 'ABCDxxxxxxxxxxxxxxxxxxxxxxxx1234';
    expect(shortKey(key)).toBe('ABCD…1234');
    expect(
      describeAudit({ action: 'keys.bulk', actor: session, target: key, details: { action: 'ban', updated: 1, notFound: 0, skipped: 0 } }),
    ).toBe('Banned key ABCD…1234');
    expect(
      describeAudit({
        action: 'keys.bulk',
        actor: session,
        target: null,
        details: { action: 'pause', updated: 3, notFound: 0, skipped: 0 },
      }),
    ).toBe('Paused 3 keys');
    expect(describeActor(session, 'me')).toBe('by you in the dashboard');
    expect(describeActor({ kind: 'end-user', accountId: null })).toMatch(/^by a buyer/);
  });
  it('names HWIDs and changed settings in words, never raw JSON', () => {
    expect(describeAudit({ action: 'blacklist.add', actor: session, target: 'pc-9', details: { reason: 'chargeback' } })).toBe(
      'Blacklisted HWID pc-9 (chargeback)',
    );
    expect(describeAudit({ action: 'key.update', actor: session, target: 'short-key', details: { chatId: '1', expiresAt: 'x' } })).toBe(
      'Edited key short-key (Discord user, expiry)',
    );
    const text = describeAudit({ action: 'settings.update', actor: session, target: null, details: { hwidResetCooldownFreeHours: 3 } });
    expect(text).toBe('Changed the settings (free cooldown)');
    expect(text).not.toMatch(/[{}"]/);
  });
});

describe('the overview says what needs attention', () => {
  it('names failed webhook messages and a BASE_URL that is not the dashboard’s address, and nothing when all is well', async () => {
    const { attentionItems, sparklinePoints, todayUtc } = await import('../../web/src/lib/overview.ts');
    expect(
      attentionItems({ failedWebhookMessages: 0, baseUrl: 'https://keys.example.com/key/x', dashboardOrigin: 'https://keys.example.com' }),
    ).toEqual([]);
    const both = attentionItems({
      failedWebhookMessages: 2,
      baseUrl: 'http://localhost:3000/key/x',
      dashboardOrigin: 'https://keys.example.com',
    });
    expect(both.map((a) => a.text)).toEqual([
      '2 webhook messages could not be delivered: check the webhook address in Settings (the outbox there says why).',
      'Loadstrings and links point at http://localhost:3000/key/x, but this dashboard is open at https://keys.example.com. If buyers reach the server at this address, set BASE_URL=https://keys.example.com and restart Keyward.',
    ]);
    expect(todayUtc(Date.parse('2026-11-25T10:20:00.000Z'))).toEqual({ from: '2026-11-25T00:00:00.000Z', to: '2026-11-25T10:20:00.000Z' });
    expect(sparklinePoints([0, 5, 10], 100, 20)).toBe('0.0,20.0 50.0,10.0 100.0,0.0');
    expect(sparklinePoints([], 100, 20)).toBe('');
  });
});
