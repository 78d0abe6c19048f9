import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/** The keys page as a seller uses it, in Debian's Chromium against a real listening app. */
const d = useDashboard();

describe('dashboard keys page in a real browser', () => {
  it('generates, searches, filters, bulk-bans, resets an HWID, exports and imports', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [bound] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', note: 'bound-one' });
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${bound}&hwid=pc-1`)).body.data.valid).toBe(true);

    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`);
    await page.getByRole('table', { name: 'Keys' }).getByText(bound!).waitFor();

    // Generate three premium keys with a note.
    await page.getByRole('button', { name: 'Generate keys' }).click();
    const dialog = page.getByRole('dialog', { name: 'Generate keys' });
    await dialog.getByRole('combobox', { name: 'Expiration' }).selectOption({ label: 'Days' });
    await dialog.getByRole('textbox', { name: 'Days' }).fill('10');
    await dialog.getByRole('textbox', { name: 'Count' }).fill('3');
    await dialog.getByRole('textbox', { name: 'Note' }).fill('batch-a');
    await dialog.getByRole('checkbox', { name: 'Premium' }).check();
    await dialog.getByRole('textbox', { name: 'Max HWIDs' }).fill('2');
    await dialog.getByRole('button', { name: 'Generate' }).click();
    const created = (await dialog.getByRole('textbox', { name: 'New keys' }).inputValue()).split('\n');
    expect(created).toHaveLength(3);
    await dialog.getByRole('button', { name: 'Done' }).click();
    const rows = await ctx.db
      .selectFrom('generatedKeys')
      .select(['key', 'note', 'isPremium', 'maxHwids'])
      .where('note', '=', 'batch-a')
      .execute();
    expect(rows.map((r) => r.key).sort()).toEqual([...created].sort());
    expect(rows.every((r) => Boolean(r.isPremium) && Number(r.maxHwids) === 2)).toBe(true);

    // Search narrows the table and lands in the address.
    const table = page.getByRole('table', { name: 'Keys' });
    await page.getByRole('searchbox', { name: 'Search' }).fill('batch-a');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => table.getByRole('row').count()).toBe(4);
    expect(page.url()).toContain('search=batch-a');

    // Bulk-ban the three found keys.
    await page.getByRole('checkbox', { name: 'Select all keys on this page' }).check();
    await page.getByRole('region', { name: 'Selection actions' }).getByRole('button', { name: 'Ban' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(async () =>
        (await ctx.db.selectFrom('generatedKeys').select('status').where('note', '=', 'batch-a').execute()).map((r) => r.status),
      )
      .toEqual(['banned', 'banned', 'banned']);

    // A filter: banned keys only, kept in the URL.
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => page.url()).not.toContain('search=');
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Banned' });
    await expect.poll(() => table.getByRole('row').count()).toBe(4);
    expect(page.url()).toContain('status=banned');
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Any' });
    await expect.poll(() => page.url()).not.toContain('status=');

    // Reset the bound key's HWID from its row.
    await table.getByRole('row').filter({ hasText: bound! }).getByRole('button', { name: 'Reset HWID' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(async () => (await ctx.db.selectFrom('activeKeys').select('hwid').where('key', '=', bound!).executeTakeFirstOrThrow()).hwid)
      .toBeNull();

    // Export: the downloaded CSV holds every key.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export' }).click();
    await page.getByRole('menuitem', { name: 'CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${s.identifier}-keys-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toContain('key,type,status,hwids');
    for (const key of [bound!, ...created]) expect(csv, csv + ' BOUND=' + bound).toContain(key);

    // Import a Luarmor file: one bad record shows its row error, then a good file imports.
    await page.getByRole('button', { name: 'Import' }).click();
    const importDialog = page.getByRole('dialog', { name: 'Import keys' });
    await importDialog.getByRole('combobox', { name: 'Format' }).selectOption('luarmor');
    const bad = [
      { user_key: 'ok-key-0001', identifier: '', auth_expire: -1 },
      { user_key: 'x', auth_expire: -1 },
    ];
    await importDialog
      .locator('input[type="file"]')
      .setInputFiles({ name: 'users.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    await importDialog.getByRole('button', { name: 'Import' }).click();
    await importDialog.getByRole('table', { name: 'Import errors' }).getByRole('cell', { name: '2', exact: true }).waitFor();
    const good = [
      {
        user_key: 'luarmor-key-0001',
        identifier: 'pc-77',
        discord_id: '',
        note: 'from luarmor',
        auth_expire: -1,
        banned: 0,
        total_executions: 5,
      },
    ];
    await importDialog
      .locator('input[type="file"]')
      .setInputFiles({ name: 'users.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
    await importDialog.getByRole('button', { name: 'Preview import' }).click();
    // Contract §27: the preview says what would be stored, writes nothing, and the import waits for the seller's confirmation.
    const preview = importDialog.getByRole('region', { name: 'Import preview' });
    await preview.getByText('1 key to import: 1 active').waitFor();
    await preview.getByRole('table', { name: 'Import sample' }).getByRole('cell', { name: 'pc-77' }).waitFor();
    expect(await ctx.db.selectFrom('activeKeys').select('key').where('key', '=', 'luarmor-key-0001').executeTakeFirst()).toBeUndefined();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: 'test-results/import-preview-1280.png' });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: 'test-results/import-preview-375.png' });
    await importDialog.getByRole('button', { name: 'Import 1 key' }).click();
    await page.getByText('Imported 1 key: 1 active').waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    await table.getByText('luarmor-key-0001').waitFor();
    const imported = await ctx.db
      .selectFrom('activeKeys')
      .select(['hwid', 'executions'])
      .where('key', '=', 'luarmor-key-0001')
      .executeTakeFirstOrThrow();
    expect({ hwid: imported.hwid, executions: Number(imported.executions) }).toEqual({ hwid: 'pc-77', executions: 5 });
    await page.context().close();
  }, 60_000);

  it('works at 375 px: no sideways scrolling, the sections behind the menu button; and the theme switches between dark and light', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [key] = await generateKeys(app, s.serviceKey, {
      expirationType: 'byDays',
      days: 30,
      count: 5,
      note: 'a fairly long note on a phone',
    });
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`, { width: 375, height: 812 });
    await page.getByRole('table', { name: 'Keys' }).getByText(key!).waitFor();
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBe(0);
    for (const name of ['Generate keys', 'Export']) expect(await page.getByRole('button', { name }).isVisible(), name).toBe(true);

    // The sections sit behind the menu button on a phone; it opens them and a section is one tap away.
    const blacklist = page.getByRole('link', { name: 'Blacklist' });
    const onScreen = async () => {
      const box = await blacklist.boundingBox();
      return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= 375 && (await blacklist.isVisible());
    };
    expect(await onScreen()).toBe(false);
    await page.getByRole('button', { name: 'Sections' }).click();
    await expect.poll(onScreen).toBe(true);
    await blacklist.click();
    await page.waitForURL((url) => url.pathname === `/services/${s.id}/blacklist`);
    expect(await overflow()).toBe(0);

    // Dark and light: the toggle switches the scheme, which stays after a reload, and switches back.
    const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    expect(await scheme()).toBe('light');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await expect.poll(scheme).toBe('dark');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = await background();
    await page.reload();
    await page.getByRole('button', { name: 'Switch to light theme' }).waitFor();
    expect(await scheme()).toBe('dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await expect.poll(scheme).toBe('light');
    expect(await background()).not.toBe(dark);
    await page.context().close();
  }, 60_000);
});
