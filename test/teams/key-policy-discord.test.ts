import { beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { call } from '../helpers/seed.ts';
import { buyerId, said, useConsole, slash, userOption, intOption, type Console } from '../chat/console-helpers.ts';

// Contract §25 through Discord's /whitelist (§24.3): a reseller's key made there goes through the same quota and key
// policy check as the dashboard's generate, and its refusals read the same.

const setup = useConsole({ resetEachTest: false });
let t: TestApp;
let c: Console;
beforeAll(() => void ({ t, c } = setup));

const setQuota = async (quota: Record<string, unknown>) => {
  const res = await call(t.app, 'PATCH', `/api/v1/services/${c.s.id}/members/${c.accounts.reseller.id}`, {
    key: c.s.account.accountKey,
    body: { quota },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

const keysOf = (user: string) =>
  t.ctx.db.selectFrom('generatedKeys').selectAll().where('serviceId', '=', c.s.id).where('chatId', '=', user).execute();

describe('/whitelist by a reseller', () => {
  it('makes a key within the policy: its devices-at-once limit, one HWID, no premium, the HWID check on', async () => {
    await setQuota({ keysLeft: 5, maxHwids: 1, maxSessions: 2, allowPremium: false, allowNoHwidValidation: false, allowLifetime: true });
    const user = buyerId();
    expect(await said(t, c, slash(c.discordIds.reseller, 'whitelist', [userOption(user), intOption('days', 7)]))).toMatch(
      /Made a 7-day key/,
    );
    const [key] = await keysOf(user);
    expect(key).toMatchObject({ maxSessions: 2, maxHwids: 1, isPremium: 0, noHwidValidation: 0, createdBy: c.accounts.reseller.id });
  });

  it('is refused in the dashboard’s words: lifetime outside the policy, then "1 key asked, 0 left"', async () => {
    await setQuota({ keysLeft: 1, allowLifetime: false, maxSessions: null });
    const lifetime = buyerId();
    expect(await said(t, c, slash(c.discordIds.reseller, 'whitelist', [userOption(lifetime)]))).toMatch(/lifetime keys are not allowed/);
    expect(await keysOf(lifetime)).toHaveLength(0);
    expect(await said(t, c, slash(c.discordIds.reseller, 'whitelist', [userOption(buyerId()), intOption('days', 3)]))).toMatch(
      /Made a 3-day key/,
    );
    const spent = buyerId();
    expect(await said(t, c, slash(c.discordIds.reseller, 'whitelist', [userOption(spent), intOption('days', 3)]))).toMatch(
      /1 key asked, 0 left\. Ask the service owner for more\./,
    );
    expect(await keysOf(spent)).toHaveLength(0);
  });
});
