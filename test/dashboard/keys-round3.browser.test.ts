import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * Issue 22 items 2, 4, 5 and 9 in Chromium: numbers out of range refused in the form (never clamped), every row
 * action on screen at 1280 px and a card per key at 375 px, type-ahead search, true messages, and the key editor.
 */
const d = useDashboard();

/** Whether the element's box lies inside the viewport's width (no sideways scrolling needed to reach it). */
const onScreen = async (page: Page, locator: ReturnType<Page['getByRole']>) => {
  const box = await locator.boundingBox();
  const width = page.viewportSize()!.width;
  return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= width;
};
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('the keys page, third round', () => {
  it('at 1280 px: every row action reachable, one plain status badge, type-ahead search, and refusals instead of clamping', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [used, unused] = await generateKeys(app, s.serviceKey, {
      expirationType: 'byDays',
      days: 30,
      count: 2,
      note: 'a note long enough to push the columns of a narrow table out of the window',
    });
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${used}&hwid=pc-1`)).body.data.valid).toBe(true);
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`, { width: 1280, height: 800 });
    const table = page.getByRole('table', { name: 'Keys' });
    const row = (key: string) => table.getByRole('row').filter({ hasText: key });
    await row(used!).waitFor();

    for (const name of ['Reset HWID', 'Extend', 'Ban', 'Delete', `More actions for ${used}`]) {
      expect(await onScreen(page, row(used!).getByRole('button', { name })), name).toBe(true);
    }
    expect(await overflow(page)).toBe(0);
    await row(used!).getByText('In use', { exact: true }).waitFor();
    await row(unused!).getByText('Not used yet', { exact: true }).waitFor();
    expect(await table.getByRole('cell', { name: 'active', exact: true }).count()).toBe(0);

    // Type-ahead: typing alone narrows the table once it pauses.
    await page.getByRole('searchbox', { name: 'Search' }).fill(unused!.slice(0, 12));
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect(page.url()).toContain(`search=${unused!.slice(0, 12)}`);
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await expect.poll(() => table.getByRole('row').count()).toBe(3);

    // Count 0 is refused with a sentence and generates nothing; "Starts when redeemed" is offered.
    await page.getByRole('button', { name: 'Generate keys' }).click();
    const dialog = page.getByRole('dialog', { name: 'Generate keys' });
    // count() does not wait: the dialog's form must be there first (CI once counted before it rendered).
    const expiration = dialog.getByRole('combobox', { name: 'Expiration' });
    await expiration.waitFor();
    expect(await expiration.getByRole('option', { name: 'Starts when redeemed' }).count()).toBe(1);
    await dialog.getByRole('textbox', { name: 'Count' }).fill('0');
    await dialog.getByRole('button', { name: 'Generate' }).click();
    await expect.poll(() => dialog.getByRole('alert').innerText()).toBe('Count must be at least 1: a whole number from 1 to 1000.');
    expect(await dialog.getByRole('textbox', { name: 'Count' }).inputValue()).toBe('0');
    const generated = async () => (await ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute()).length;
    expect(await generated()).toBe(1);
    await page.keyboard.press('Escape');

    // Extend by -10 is refused in the dialog; the expiry does not move.
    const expiryOf = async () =>
      Number((await ctx.db.selectFrom('generatedKeys').select('expiresAt').where('key', '=', unused!).executeTakeFirstOrThrow()).expiresAt);
    const before = await expiryOf();
    await row(unused!).getByRole('button', { name: 'Extend' }).click();
    const extend = page.getByRole('dialog', { name: `Extend key ${unused}` });
    await extend.getByRole('textbox', { name: 'Days' }).fill('-10');
    await extend.getByRole('button', { name: 'Extend' }).click();
    await extend.getByText('Days must be at least 1: a whole number from 1 to 3650.').waitFor();
    expect(await expiryOf()).toBe(before);
    await extend.getByRole('button', { name: 'Cancel' }).click();

    // Reset HWID on a key nobody used says so, not "skipped (lifetime)".
    await row(unused!).getByRole('button', { name: 'Reset HWID' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('No HWID to clear on 1 key: not used on a device yet, or already reset').waitFor();
    expect(await page.getByText(/lifetime/).count()).toBe(0);

    // The editor: saving a note leaves the stored expiry (to the millisecond), a past expiry is refused.
    const storedExpiry = async () =>
      Number((await ctx.db.selectFrom('activeKeys').select('expiresAt').where('key', '=', used!).executeTakeFirstOrThrow()).expiresAt);
    const exact = (await storedExpiry()) + 12_345;
    await ctx.db.updateTable('activeKeys').set({ expiresAt: exact }).where('key', '=', used!).execute();
    await page.reload();
    await table.getByRole('button', { name: used!, exact: true }).click();
    let drawer = page.getByRole('dialog', { name: `Key ${used}` });
    await drawer.getByRole('textbox', { name: 'Note' }).fill('only the note');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await ctx.db.selectFrom('activeKeys').select('note').where('key', '=', used!).executeTakeFirstOrThrow()).note)
      .toBe('only the note');
    expect(await storedExpiry()).toBe(exact);
    await table.getByRole('button', { name: used!, exact: true }).click();
    drawer = page.getByRole('dialog', { name: `Key ${used}` });
    await drawer.getByLabel('Expires at').fill('2001-01-01T00:00');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => drawer.getByRole('alert').innerText()).toMatch(/^The expiry date is in the past/);
    expect(await storedExpiry()).toBe(exact);
    await page.keyboard.press('Escape');

    // "Lifetime" greyed out on an unused key says why.
    await table.getByRole('button', { name: unused!, exact: true }).click();
    drawer = page.getByRole('dialog', { name: `Key ${unused}` });
    expect(await drawer.getByRole('switch', { name: 'Lifetime' }).isDisabled()).toBe(true);
    await drawer.getByText('A key not used yet keeps an expiry date', { exact: false }).waitFor();
    await page.context().close();
  }, 90_000);

  it('at 375 px each key reads as a card with its actions on screen', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [key] = await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 30, note: 'phone note' });
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`, { width: 375, height: 812 });
    const card = page.getByRole('table', { name: 'Keys' }).getByRole('row').filter({ hasText: key! });
    await card.waitFor();
    expect(await overflow(page)).toBe(0);
    for (const name of ['Reset HWID', 'Extend', 'Ban', 'Delete'])
      expect(await onScreen(page, card.getByRole('button', { name })), name).toBe(true);
    // A card stacks its cells: the status sits below the key, not beside it.
    const keyBox = (await card.getByRole('button', { name: key!, exact: true }).boundingBox())!;
    const statusBox = (await card.getByText('Not used yet', { exact: true }).boundingBox())!;
    expect(statusBox.y).toBeGreaterThan(keyBox.y + keyBox.height - 1);
    await card.getByText('phone note').waitFor();
    await page.context().close();
  }, 60_000);

  it('refuses a cooldown of -3 hours in the settings form and keeps the stored one', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    const stored = async () =>
      (await ctx.db.selectFrom('services').select('hwidResetCooldownFreeHours').where('id', '=', s.id).executeTakeFirstOrThrow())
        .hwidResetCooldownFreeHours;
    const before = Number(await stored());
    const page = await d.signedInPage(s.account, `/services/${s.id}/settings`);
    await page.getByRole('textbox', { name: 'Free keys (hours)' }).fill('-3');
    await page.getByRole('button', { name: 'Save cooldowns' }).click();
    await page.getByText('The cooldown of free keys must be at least 0 hours: a whole number from 0 to 720 hours.').waitFor();
    expect(await page.getByRole('textbox', { name: 'Free keys (hours)' }).inputValue()).toBe('-3');
    expect(Number(await stored())).toBe(before);
    await page.context().close();
  }, 60_000);
});
