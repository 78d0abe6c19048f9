import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { call, seedAccount, seedService, type SeededService } from '../helpers/seed.ts';
import { solveCaptcha, useDashboard } from './browser.ts';

// Contract §25 in Debian's Chromium: a reseller's Generate offers only its quota and key policy and is off at 0 keys
// left; the Team page shows open invites with role and quota, sets the key policy, and fits 375 px with every column
// of the members; the invite page names what it offers and lets a visitor without an account register and join.
const d = useDashboard();
const WAIT = { timeout: 20_000 };

async function invite(s: SeededService, role: string, quota?: Record<string, unknown>) {
  const res = await call(d.app().app, 'POST', `/api/v1/services/${s.id}/invites`, {
    key: s.account.accountKey,
    body: { role, ...(quota && { quota }) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.code as string;
}

async function join(s: SeededService, role: string, quota?: Record<string, unknown>) {
  const account = await seedAccount(d.app().ctx);
  const code = await invite(s, role, quota);
  expect((await call(d.app().app, 'POST', `/api/v1/invites/${code}/accept`, { key: account.accountKey })).status).toBe(200);
  return account;
}

/** Nothing sticks out sideways: the page is no wider than the screen. */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

describe('a reseller’s Generate (contract §25)', () => {
  it('at 0 keys left the button is off and says to ask the owner', async () => {
    const s = await seedService(d.app().ctx);
    const reseller = await join(s, 'reseller', { keysLeft: 0, allowLifetime: true });
    const page = await d.signedInPage(reseller, `/services/${s.id}/keys`, { width: 375 });
    await page.getByText('No keys left — ask the service owner for more').waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Generate keys' }).isDisabled()).toBe(true);
  });

  it('offers only what the policy allows: no Lifetime, days up to maxDays, no premium or no-HWID-check box', async () => {
    const { db } = d.app();
    const s = await seedService(d.app().ctx);
    const reseller = await join(s, 'reseller', { keysLeft: 5, maxDays: 30, allowLifetime: false, maxHwids: 2 });
    const page = await d.signedInPage(reseller, `/services/${s.id}/keys`);
    await page.getByText('5 keys left').waitFor(WAIT);
    await page.getByRole('button', { name: 'Generate keys' }).click();
    const dialog = page.getByRole('dialog', { name: 'Generate keys' });
    const expiration = dialog.getByRole('combobox', { name: 'Expiration' });
    await expiration.waitFor(WAIT);
    expect(await expiration.locator('option').allInnerTexts()).toEqual(['Days', 'Date', 'Starts when redeemed']);
    for (const hidden of ['Premium', 'No HWID validation']) expect(await dialog.getByRole('checkbox', { name: hidden }).count()).toBe(0);

    // Over the policy: refused in the form, nothing sent.
    await dialog.getByRole('textbox', { name: 'Days' }).fill('31');
    await dialog.getByRole('textbox', { name: 'Max HWIDs' }).fill('3');
    await dialog.getByRole('button', { name: 'Generate', exact: true }).click();
    await dialog.getByText('Days must be at most 30').first().waitFor(WAIT);
    expect(await db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute()).toEqual([]);

    // Within it: made, and the quota goes down.
    await dialog.getByRole('textbox', { name: 'Days' }).fill('30');
    await dialog.getByRole('textbox', { name: 'Max HWIDs' }).fill('2');
    await dialog.getByRole('textbox', { name: 'Count' }).fill('2');
    await dialog.getByRole('button', { name: 'Generate', exact: true }).click();
    await dialog.getByRole('textbox', { name: 'New keys' }).waitFor(WAIT);
    const made = await db.selectFrom('generatedKeys').select(['maxHwids']).where('serviceId', '=', s.id).execute();
    expect(made).toEqual([{ maxHwids: 2 }, { maxHwids: 2 }]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByText('3 keys left').waitFor(WAIT);
  });
  it('changes the HWIDs of its own key within the policy, with no premium box the policy leaves out', async () => {
    const { db, app } = d.app();
    const s = await seedService(d.app().ctx);
    const reseller = await join(s, 'reseller', { keysLeft: 5, maxHwids: 3 });
    const made = await call(app, 'POST', '/api/v1/keys/api/generate', {
      key: reseller.accountKey,
      headers: { 'x-service-id': s.id },
      body: { expirationType: 'byDays', days: 10 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const key = made.body.data.keys[0].key as string;
    const page = await d.signedInPage(reseller, `/services/${s.id}/keys`);
    await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: key, exact: true }).click();
    const drawer = page.getByRole('dialog', { name: `Key ${key}` });
    const hwids = drawer.getByRole('textbox', { name: 'Max HWIDs' });
    await hwids.waitFor(WAIT);
    expect(await drawer.getByRole('checkbox', { name: 'Premium' }).count()).toBe(0);
    expect(await drawer.getByRole('checkbox', { name: 'No HWID validation' }).count()).toBe(0);
    await hwids.fill('4');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await drawer.getByText('Max HWIDs must be at most 3').first().waitFor(WAIT);
    await hwids.fill('3');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => db.selectFrom('generatedKeys').select('maxHwids').where('key', '=', key).executeTakeFirst(), WAIT)
      .toEqual({ maxHwids: 3 });
  });
});

describe('the Team page (contract §25)', () => {
  it('invites a reseller with a key policy; open invites show role and quota', async () => {
    const { db } = d.app();
    const s = await seedService(d.app().ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/team`);
    const form = page.getByRole('region', { name: 'Invite someone' });
    await form.getByRole('combobox', { name: 'Role' }).selectOption('reseller');
    await form.getByRole('textbox', { name: 'Keys it may generate' }).fill('25');
    await form.getByRole('textbox', { name: 'HWIDs per key, at most' }).fill('3');
    await form.getByRole('textbox', { name: 'Devices at once, at most' }).fill('2');
    await form.getByRole('switch', { name: 'May make premium keys' }).dispatchEvent('click');
    await form.getByRole('button', { name: 'Create invite link' }).click();
    await form.getByLabel('Invite link', { exact: true }).waitFor(WAIT);
    const stored = await db.selectFrom('serviceInvites').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      role: 'reseller',
      keysLeft: 25,
      maxDays: null,
      allowLifetime: 0,
      maxHwids: 3,
      allowNoHwidValidation: 0,
      allowPremium: 1,
      maxSessions: 2,
    });
    const open = page.getByRole('region', { name: 'Open invites' });
    await open.getByText('Reseller', { exact: true }).waitFor(WAIT);
    const quota = await open.getByText(/^25 keys left/).innerText();
    expect(quota).toContain('up to 3 HWIDs per key');
    expect(quota).toContain('up to 2 devices at once');
    expect(quota).toContain('may make premium keys');
  });

  it('at 375 px the members fit the screen with every column there', async () => {
    const s = await seedService(d.app().ctx);
    const support = await join(s, 'support');
    const reseller = await join(s, 'reseller', { keysLeft: 7, maxDays: 30 });
    const page = await d.signedInPage(s.account, `/services/${s.id}/team`, { width: 375, height: 800 });
    const members = page.getByRole('list', { name: 'Members' });
    await members.getByRole('listitem', { name: reseller.username }).waitFor(WAIT);
    expect(await fitsWidth(page)).toBe(true);
    for (const who of [support, reseller]) {
      const card = members.getByRole('listitem', { name: who.username });
      for (const column of ['Role', 'Quota left', 'Keys created', 'Keys redeemed']) {
        expect(await card.getByText(column, { exact: true }).isVisible(), `${who.username}: ${column}`).toBe(true);
      }
      await card.getByRole('combobox', { name: `Role of ${who.username}` }).waitFor(WAIT);
      const remove = card.getByRole('button', { name: `Remove ${who.username}` });
      const box = (await remove.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    }
    expect(await members.getByLabel(`Keys left for ${reseller.username}`).innerText()).toMatch(/^7 keys left, keys up to 30 days/);

    // The quota dialog fits too, and changes only what the owner changed.
    await members.getByRole('button', { name: `Change the quota of ${reseller.username}` }).click();
    const dialog = page.getByRole('dialog', { name: `Quota of ${reseller.username}` });
    await dialog.getByRole('textbox', { name: 'Longest key, in days' }).fill('60');
    expect(await fitsWidth(page)).toBe(true);
    await dialog.getByRole('button', { name: 'Save quota' }).click();
    await expect
      .poll(
        () =>
          d.app().db.selectFrom('serviceMembers').select(['keysLeft', 'maxDays']).where('accountId', '=', reseller.id).executeTakeFirst(),
        WAIT,
      )
      .toEqual({ keysLeft: 7, maxDays: 60 });
  });
});

describe('the invite page (contract §25)', () => {
  for (const width of [1280, 375]) {
    it(`at ${width} px a visitor without an account sees what the invite offers, registers and lands on the team`, async () => {
      const { db } = d.app();
      const s = await seedService(d.app().ctx);
      const code = await invite(s, 'reseller', { keysLeft: 12, maxDays: 90, allowLifetime: false, maxHwids: 2 });
      const { name } = await db.selectFrom('services').select('name').where('id', '=', s.id).executeTakeFirstOrThrow();
      const page = await d.newPage({ width });
      await page.goto(d.url(`/invite/${code}`));
      await page.getByRole('heading', { name: `Join ${name}` }).waitFor(WAIT);
      const body = await page.locator('body').innerText();
      expect(body).toContain(s.account.username);
      expect(body).toContain('Reseller');
      const terms = await page.getByRole('list', { name: 'Your quota and key policy' }).innerText();
      for (const term of ['12 keys to generate', 'Keys up to 90 days', 'No lifetime keys', 'Up to 2 HWIDs per key'])
        expect(terms).toContain(term);
      expect(await fitsWidth(page)).toBe(true);

      const username = `inv${Date.now().toString(36)}${width}`;
      await page.getByRole('textbox', { name: 'Username' }).fill(username);
      await page.getByRole('textbox', { name: 'Password' }).fill('a long enough password');
      await solveCaptcha(page);
      await page.getByRole('button', { name: 'Create account and join' }).click();
      await page.waitForURL((url) => url.pathname === `/services/${s.id}/keys`, WAIT);
      await page.getByText('12 keys left').waitFor(WAIT);
      const account = await db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirstOrThrow();
      expect(
        await db.selectFrom('serviceMembers').select(['role', 'keysLeft']).where('accountId', '=', account.id).executeTakeFirst(),
      ).toEqual({ role: 'reseller', keysLeft: 12 });
    });
  }

  it('a signed-in visitor accepts; a used link says so in one sentence', async () => {
    const s = await seedService(d.app().ctx);
    const code = await invite(s, 'support');
    const visitor = await seedAccount(d.app().ctx);
    const page = await d.signedInPage(visitor, `/invite/${code}`);
    await page.getByText(`You are signed in as ${visitor.username}`).waitFor(WAIT);
    expect(await page.getByRole('textbox', { name: 'Username' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Accept the invite' }).click();
    await page.waitForURL((url) => url.pathname === `/services/${s.id}/keys`, WAIT);

    await page.goto(d.url(`/invite/${code}`));
    await page.getByRole('heading', { name: 'This invite link does not work' }).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
  });
});
