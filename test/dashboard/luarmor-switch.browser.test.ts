import { describe, expect, it } from 'vitest';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/** Contract §21: ban with a reason and an end, Switching from Luarmor, and ffa/silent on the script form. */
const d = useDashboard();
const DAY = 86_400_000;

describe('the fourth round’s Luarmor pages in a real browser', () => {
  it('bans selected keys with a reason and days, and one key from its drawer with a reason', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [a, b] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', count: 2 });
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${a}&hwid=pc-1`)).body.data.valid).toBe(true);
    const row = (key: string) =>
      ctx.db.selectFrom('activeKeys').select(['status', 'banReason', 'banExpiresAt']).where('key', '=', key).executeTakeFirst();
    const generated = (key: string) =>
      ctx.db.selectFrom('generatedKeys').select(['status', 'banReason', 'banExpiresAt']).where('key', '=', key).executeTakeFirst();

    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`);
    await page.getByRole('checkbox', { name: `Select ${a}` }).check();
    await page.getByRole('checkbox', { name: `Select ${b}` }).check();
    await page.getByRole('region', { name: 'Selection actions' }).getByRole('button', { name: 'Ban' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ban' });
    await dialog.getByRole('textbox', { name: 'Reason' }).fill('chargeback');
    await dialog.getByRole('textbox', { name: 'Ban for (days)' }).fill('3');
    const before = Date.now();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(async () => (await row(a!))?.banReason).toBe('chargeback');
    const banned = (await row(a!))!;
    expect(banned.status).toBe('banned');
    expect(Number(banned.banExpiresAt) - before).toBeGreaterThan(3 * DAY - 60_000);
    expect(await generated(b!)).toMatchObject({ status: 'banned', banReason: 'chargeback' });

    // The drawer shows the ban and changes its reason; saving keeps the end it does not touch.
    await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: a!, exact: true }).click();
    const drawer = page.getByRole('dialog', { name: `Key ${a}` });
    await drawer.getByRole('textbox', { name: 'Ban reason' }).fill('second chargeback');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await row(a!))?.banReason).toBe('second chargeback');
    await page.context().close();
  });

  it('gives the Luarmor base address on API access, and its link opens the import', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/api-access`);
    await page.getByRole('heading', { name: 'Switching from Luarmor' }).waitFor();
    expect(await page.getByLabel('Luarmor base address').textContent()).toBe(`${new URL(page.url()).origin}/luarmor`);
    expect(await page.getByLabel('Luarmor project id').textContent()).toBe(s.identifier);
    await page.getByRole('link', { name: 'import your Luarmor users' }).click();
    await page.getByRole('dialog', { name: 'Import keys' }).waitFor();
    await page.context().close();
  });

  it('uploads a free-for-all, quiet script from the form', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/scripts`);
    await page.getByRole('button', { name: 'Upload script' }).click();
    const upload = page.getByRole('dialog', { name: 'Upload script' });
    await upload.getByRole('textbox', { name: 'Name' }).fill('free');
    await upload.getByRole('textbox', { name: 'Code' }).fill('print(LRM_IsUserPremium)');
    await upload.getByLabel('Free for everyone').check();
    await upload.getByLabel('Quiet loader').check();
    await upload.getByRole('button', { name: 'Upload' }).click();
    await expect
      .poll(async () => ctx.db.selectFrom('scripts').select(['ffa', 'silent']).where('serviceId', '=', s.id).executeTakeFirst())
      .toEqual({ ffa: 1, silent: 1 });
    await page.context().close();
  });
});
