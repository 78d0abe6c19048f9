import { describe, expect, it } from 'vitest';
import { seedAccount } from '../helpers/seed.ts';
import { solveCaptcha, useDashboard } from './browser.ts';

/** A seller signs in with the account key, creates a service, uploads a script, changes settings and the service key. */
const d = useDashboard();

describe('dashboard service pages in a real browser', () => {
  it('signs in with the account key, creates a service, uploads a script, copies its loadstring, saves settings, regenerates the service key', async () => {
    const { ctx } = d.app();
    const account = await seedAccount(ctx);
    const page = await d.newPage();

    await page.goto(d.url('/login'));
    await page.getByLabel('Sign in with API key').check();
    await page.getByRole('textbox', { name: 'Account key' }).fill(account.accountKey);
    await solveCaptcha(page);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await page.getByRole('button', { name: 'New service' }).click();
    const create = page.getByRole('dialog', { name: 'New service' });
    await create.getByRole('textbox', { name: 'Name' }).fill('My Game');
    await create.getByRole('textbox', { name: 'Identifier' }).fill('my-game');
    await create.getByRole('button', { name: 'Create' }).click();
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
    expect(copied).toBe(`loadstring(game:HttpGet("${ctx.config.baseUrl}/api/v1/vss/loader/${scriptId}"))()`);

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
    await page.context().close();
  }, 60_000);
});
