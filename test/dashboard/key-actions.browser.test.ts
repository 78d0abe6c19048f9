import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/** The per-key actions of the keys page (drawer, edit, extend, pause, activate, note, delete, compensate, JSON export). */
const d = useDashboard();
const DAY = 86_400_000;

describe('dashboard key actions in a real browser', () => {
  it('shows a key in its drawer, edits it, extends, pauses, activates, notes, deletes, compensates and exports JSON', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [bound, spare, doomed] = await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 10, count: 3 });
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${bound}&hwid=pc-1`)).body.data.valid).toBe(true);
    const activeRow = () =>
      ctx.db
        .selectFrom('activeKeys')
        .select(['note', 'isPremium', 'status', 'expiresAt'])
        .where('key', '=', bound!)
        .executeTakeFirstOrThrow();
    const generatedRow = (key: string) =>
      ctx.db.selectFrom('generatedKeys').select(['note', 'status', 'expiresAt']).where('key', '=', key).executeTakeFirst();

    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`);
    const table = page.getByRole('table', { name: 'Keys' });
    const row = (key: string) => table.getByRole('row').filter({ hasText: key });

    // The drawer shows the bound HWID; its form saves a note and premium.
    await table.getByRole('button', { name: bound!, exact: true }).click();
    const drawer = page.getByRole('dialog', { name: `Key ${bound}` });
    await drawer.getByRole('table', { name: 'Key details' }).getByRole('cell', { name: 'pc-1', exact: true }).waitFor();
    await drawer.getByRole('textbox', { name: 'Note' }).fill('edited in drawer');
    await drawer.getByRole('checkbox', { name: 'Premium' }).check();
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect.poll(activeRow).toMatchObject({ note: 'edited in drawer', status: 'active' });
    expect(Boolean((await activeRow()).isPremium)).toBe(true);
    await page.keyboard.press('Escape');
    await row(bound!).getByText('edited in drawer').waitFor();

    // Extend one generated key from its row by three days.
    const spareBefore = (await generatedRow(spare!))!.expiresAt!;
    await row(spare!).getByRole('button', { name: 'Extend' }).click();
    const extend = page.getByRole('dialog', { name: `Extend key ${spare}` });
    await extend.getByRole('textbox', { name: 'Days' }).fill('3');
    await extend.getByRole('button', { name: 'Extend' }).click();
    await expect.poll(async () => Number((await generatedRow(spare!))!.expiresAt) - Number(spareBefore)).toBe(3 * DAY);

    // Pause two selected keys, then activate them again. A finished bulk action clears the selection.
    const selection = page.getByRole('region', { name: 'Selection actions' });
    const selectTwo = async () => {
      await selection.waitFor({ state: 'detached' });
      await page.getByRole('checkbox', { name: `Select ${bound}` }).check();
      await page.getByRole('checkbox', { name: `Select ${spare}` }).check();
    };
    await selectTwo();
    await selection.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(async () => [(await activeRow()).status, (await generatedRow(spare!))!.status]).toEqual(['paused', 'paused']);
    await selectTwo();
    await selection.getByRole('button', { name: 'Activate' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(async () => [(await activeRow()).status, (await generatedRow(spare!))!.status]).toEqual(['active', 'active']);

    // Set one note on the selection.
    await selectTwo();
    await selection.getByRole('button', { name: 'Set note' }).click();
    const noteDialog = page.getByRole('dialog', { name: 'Set note' });
    await noteDialog.getByRole('textbox', { name: 'Note' }).fill('bulk note');
    await noteDialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => [(await activeRow()).note, (await generatedRow(spare!))!.note]).toEqual(['bulk note', 'bulk note']);

    // Delete a key from its row (confirmed).
    await row(doomed!).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(async () => await generatedRow(doomed!)).toBeUndefined();
    await expect.poll(() => row(doomed!).count()).toBe(0);

    // Compensate adds days to every expiring key of the service.
    const boundBefore = Number((await activeRow()).expiresAt);
    await page.getByRole('button', { name: 'Compensate' }).click();
    const compensate = page.getByRole('dialog', { name: 'Compensate every key' });
    await compensate.getByRole('textbox', { name: 'Days' }).fill('2');
    await compensate.getByRole('button', { name: 'Compensate' }).click();
    await page.getByText('Compensated 1 active and 1 generated keys').waitFor();
    expect(Number((await activeRow()).expiresAt) - boundBefore).toBe(2 * DAY);

    // JSON export: the downloaded file holds both remaining keys with their notes.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export' }).click();
    await page.getByRole('menuitem', { name: 'JSON' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/\.json$/);
    const exported = JSON.parse(await readFile((await download.path())!, 'utf8')) as Array<{ key: string; note: string | null }>;
    expect(exported.map((k) => [k.key, k.note]).sort()).toEqual(
      [
        [bound, 'bulk note'],
        [spare, 'bulk note'],
      ].sort(),
    );
    await page.context().close();
  }, 60_000);
});
