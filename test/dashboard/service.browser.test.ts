import { describe, expect, it } from 'vitest';
import { createService } from '../../src/modules/services/services.service.ts';
import { seedAccount } from '../helpers/seed.ts';
import { solveCaptcha, useDashboard } from './browser.ts';

/**
 * A seller signs in with the account key, creates a service by keyboard alone, renames and deletes services, uploads a
 * script, changes settings, the service key, its permissions and IP allowlist.
 */
const d = useDashboard();

describe('dashboard service pages in a real browser', () => {
  it('signs in with the account key, creates a service by keyboard, renames and deletes services, uploads a script, copies its loadstring, saves settings, regenerates the service key, sets permissions and the IP allowlist', async () => {
    const { ctx } = d.app();
    const account = await seedAccount(ctx);
    const spare = await createService(ctx, account.id, { name: 'Spare Game' });
    const page = await d.newPage();

    await page.goto(d.url('/login'));
    await page.getByLabel('Sign in with API key').check();
    await page.getByRole('textbox', { name: 'Account key' }).fill(account.accountKey);
    await solveCaptcha(page);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    // The main action by keyboard alone: Tab reaches "New service", Enter opens it, the form is typed and sent.
    const newService = page.getByRole('button', { name: 'New service' });
    await newService.waitFor();
    let tabs = 0;
    while (!(await newService.evaluate((el) => el === document.activeElement))) {
      expect(tabs++, 'Tab reaches "New service" within 30 presses').toBeLessThan(30);
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    const create = page.getByRole('dialog', { name: 'New service' });
    await expect.poll(() => create.getByRole('textbox', { name: 'Name' }).evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('Draft Game');
    await page.keyboard.press('Tab');
    await page.keyboard.type('my-game');
    await page.keyboard.press('Enter');
    // Create service opens the new service (contract §27); the list is one click away.
    const draftId = () => ctx.db.selectFrom('services').select('id').where('identifier', '=', 'my-game').executeTakeFirst();
    await expect.poll(async () => (await draftId())?.id).toBeTruthy();
    await page.waitForURL(new RegExp(`/services/${(await draftId())!.id}/`));
    await page.goto(page.url().replace(/\/services\/.*$/, '/services'));
    await page.getByRole('link', { name: 'Draft Game' }).waitFor();

    // Rename it from its row's menu, and delete the spare service (confirmed).
    await page.getByRole('button', { name: 'Actions for Draft Game' }).click();
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename Draft Game' });
    await rename.getByRole('textbox', { name: 'Name' }).fill('My Game');
    await rename.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'My Game' }).waitFor();
    await page.getByRole('button', { name: 'Actions for Spare Game' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Spare Game?' });
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByRole('link', { name: 'Spare Game' }).count()).toBe(0);
    expect(await ctx.db.selectFrom('services').select('id').where('id', '=', spare.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom('services').select('name').where('identifier', '=', 'my-game').execute()).toEqual([{ name: 'My Game' }]);

    await page.getByRole('link', { name: 'My Game' }).click();
    const service = await ctx.db.selectFrom('services').select(['id']).where('identifier', '=', 'my-game').executeTakeFirstOrThrow();

    // Scripts: upload from the dialog, then copy the loadstring the server built.
    await page.getByRole('link', { name: 'Scripts' }).click();
    await page.getByRole('button', { name: 'Upload script' }).click();
    const upload = page.getByRole('dialog', { name: 'Upload script' });
    await upload.getByRole('textbox', { name: 'Name' }).fill('main.lua');
    await upload.getByRole('textbox', { name: 'Code' }).fill('print("hello")');
    await upload.getByRole('combobox', { name: 'Obfuscation' }).selectOption('NONE');
    await upload.getByRole('button', { name: 'Upload' }).click();
    await expect
      .poll(async () => (await ctx.db.selectFrom('scripts').select('id').where('serviceId', '=', service.id).execute()).length)
      .toBe(1);
    const { id: scriptId } = await ctx.db.selectFrom('scripts').select('id').where('serviceId', '=', service.id).executeTakeFirstOrThrow();
    await page.getByRole('table', { name: 'Scripts' }).getByRole('button', { name: 'Copy loadstring' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    // Contract §15: the buyer-ready snippet, the script_key line above the loadstring.
    expect(copied).toBe(`script_key = "KEY_HERE"\nloadstring(game:HttpGet("${ctx.config.baseUrl}/api/v1/vss/loader/${scriptId}"))()`);

    // Settings: the cooldowns land in the database.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('textbox', { name: 'Free keys (hours)' }).fill('12');
    await page.getByRole('textbox', { name: 'Premium keys (hours)' }).fill('2');
    await page.getByRole('button', { name: 'Save cooldowns' }).click();
    await expect
      .poll(async () => {
        const row = await ctx.db
          .selectFrom('services')
          .select(['hwidResetCooldownFreeHours', 'hwidResetCooldownPremiumHours'])
          .where('id', '=', service.id)
          .executeTakeFirstOrThrow();
        return [Number(row.hwidResetCooldownFreeHours), Number(row.hwidResetCooldownPremiumHours)];
      })
      .toEqual([12, 2]);

    // API access: reveal, regenerate (confirmed), and the shown key is the new one.
    await page.getByRole('link', { name: 'API access' }).click();
    await page.getByRole('button', { name: 'Reveal' }).click();
    const before = await page.getByLabel('Service key value').innerText();
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByLabel('Service key value').innerText()).not.toBe(before);
    const after = await page.getByLabel('Service key value').innerText();
    const status = await fetch(d.url('/api/v1/keys/api/service/status'), { headers: { 'x-api-key': after } });
    expect(status.status).toBe(200);
    expect((await fetch(d.url('/api/v1/keys/api/service/status'), { headers: { 'x-api-key': before } })).status).toBe(401);

    // Permissions: switching "Scripts" off is stored, and the switch shows the server's answer.
    const flags = () =>
      ctx.db
        .selectFrom('services')
        .select(['allowManageKeys', 'allowVss', 'allowUrlShortener'])
        .where('id', '=', service.id)
        .executeTakeFirstOrThrow();
    const scripts = page.getByRole('switch', { name: 'Scripts' });
    const vssBefore = Boolean((await flags()).allowVss);
    await expect.poll(() => scripts.isChecked()).toBe(vssBefore);
    // Dispatched on the switch itself: a forced click lands on whatever covers it, and the toasts of the copy and
    // regenerate steps above can (Mantine's switch input is visually hidden, so a normal click cannot be used).
    await scripts.dispatchEvent('click');
    await expect.poll(async () => Boolean((await flags()).allowVss)).toBe(!vssBefore);
    await expect.poll(() => scripts.isChecked()).toBe(!vssBefore);
    const shortener = page.getByRole('switch', { name: 'URL shortener' });
    const shortenerBefore = Boolean((await flags()).allowUrlShortener);
    await shortener.dispatchEvent('click');
    await expect.poll(async () => Boolean((await flags()).allowUrlShortener)).toBe(!shortenerBefore);

    // IP allowlist: a bad entry is named on the page and nothing is saved; good entries are, and the key is then
    // refused from this test's address (127.0.0.1 is not on the list).
    const allowlist = page.getByRole('textbox', { name: 'Allowed addresses' });
    const storedAllowlist = async () =>
      (await ctx.db.selectFrom('services').select('ipAllowlist').where('id', '=', service.id).executeTakeFirstOrThrow()).ipAllowlist;
    const emptyAllowlist = await storedAllowlist();
    await allowlist.fill('10.0.0.0/8\nnot-an-address');
    await page.getByRole('button', { name: 'Save allowlist' }).click();
    await expect.poll(() => page.getByRole('alert', { name: 'Allowlist problems' }).innerText()).toContain('not-an-address');
    expect(await storedAllowlist()).toBe(emptyAllowlist);
    await allowlist.fill('10.0.0.0/8\n203.0.113.7');
    await page.getByRole('button', { name: 'Save allowlist' }).click();
    await page.getByText('Allowlist saved').waitFor();
    expect(JSON.parse(await storedAllowlist())).toEqual(['10.0.0.0/8', '203.0.113.7']);
    expect((await fetch(d.url('/api/v1/keys/api/service/status'), { headers: { 'x-api-key': after } })).status).toBe(403);
    await page.context().close();
  }, 60_000);
});
