import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';
import { FakePlatform } from '../webhook/fake-platform.ts';
import { useDashboard } from './browser.ts';

/** Settings (webhook with a test message to a fake chat platform, its outbox) and script editing, in Debian's Chromium. The Discord server binding is on the Discord page (discord.browser.test.ts). */
const platform = new FakePlatform();
beforeAll(async () => {
  await platform.start();
});
afterAll(async () => {
  await platform.stop();
});
const d = useDashboard(() => ({ CHAT_WEBHOOK_ORIGINS: platform.origin }));

describe('dashboard settings and scripts in a real browser', () => {
  it('lists a failed webhook message in the outbox, saves and reveals the webhook, sends a test message, toggles it off', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    // A message the worker gave up on: the seller sees it in the outbox with the platform's last answer.
    const now = Date.now();
    await ctx.db
      .insertInto('webhookOutbox')
      .values({
        id: randomUUID(),
        serviceId: s.id,
        url: 'https://discord.com/api/webhooks/1/gone',
        payload: JSON.stringify({ content: 'key redeemed' }),
        status: 'failed',
        attempts: 8,
        nextAttemptAt: now,
        claimToken: null,
        leaseUntil: null,
        lastError: 'HTTP 404: Unknown Webhook',
        createdAt: now - 60_000,
        deliveredAt: null,
      })
      .execute();
    const service = () => ctx.db.selectFrom('services').select(['webhookEnabled']).where('id', '=', s.id).executeTakeFirstOrThrow();
    const page = await d.signedInPage(s.account, `/services/${s.id}/settings`);
    const webhook = page.getByRole('region', { name: 'Webhook' });
    const failed = webhook.getByRole('table', { name: 'Webhook outbox' }).getByRole('row').filter({ hasText: 'HTTP 404: Unknown Webhook' });
    await failed.waitFor();
    expect((await failed.getByRole('cell').allInnerTexts()).slice(0, 2)).toEqual(['Gave up', '8']); // the status in words, not the stored 'failed'

    // A URL outside the allowed chat origins is refused on the page, and nothing is stored.
    await webhook.getByRole('textbox', { name: 'Webhook URL' }).fill('https://example.invalid/api/webhooks/1/x');
    await webhook.getByRole('button', { name: 'Save webhook' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /webhook/i })
      .first()
      .waitFor();
    expect(
      (await ctx.db.selectFrom('services').select('webhookUrl').where('id', '=', s.id).executeTakeFirstOrThrow()).webhookUrl,
    ).toBeNull();

    await webhook.getByRole('textbox', { name: 'Webhook URL' }).fill(platform.webhookUrl());
    await webhook.getByRole('button', { name: 'Save webhook' }).click();
    await webhook.getByRole('button', { name: 'Reveal webhook URL' }).click();
    await webhook.getByText(platform.webhookUrl(), { exact: true }).waitFor();

    // The switches follow the server's answer, so they are clicked and the stored value is awaited.
    await webhook.getByRole('switch', { name: 'Webhook enabled' }).click({ force: true });
    await expect.poll(async () => Number((await service()).webhookEnabled)).toBe(1);
    await webhook.getByRole('textbox', { name: 'Test message' }).fill('hello from the dashboard');
    await webhook.getByRole('button', { name: 'Send test message' }).click();
    await page.getByText('Test message delivered').waitFor();
    expect(platform.contents()).toContain('hello from the dashboard');
    await webhook.getByRole('switch', { name: 'Webhook enabled' }).click({ force: true });
    await expect.poll(async () => Number((await service()).webhookEnabled)).toBe(0);

    await page.context().close();
  }, 60_000);

  it('renames a script, hides it and deletes it (confirmed), and shows the Lua library snippet', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const script = await uploadScript(app, s, { name: 'main.lua', code: 'print("hi")', obfuscationType: 'NONE' });
    const stored = () => ctx.db.selectFrom('scripts').select(['name', 'visible']).where('id', '=', script.id).executeTakeFirst();
    const page = await d.signedInPage(s.account, `/services/${s.id}/scripts`);
    const table = page.getByRole('table', { name: 'Scripts' });
    await table.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit main.lua' });
    await edit.getByRole('textbox', { name: 'Name' }).fill('renamed.lua');
    await edit.getByRole('button', { name: 'Save' }).click();
    await table.getByText('renamed.lua').waitFor();
    expect((await stored())?.name).toBe('renamed.lua');

    const visible = table.getByRole('switch', { name: 'Visible: renamed.lua' });
    const wasVisible = await visible.isChecked();
    await visible.click({ force: true });
    await expect.poll(async () => Boolean((await stored())?.visible)).toBe(!wasVisible);

    await expect.poll(() => page.getByLabel('Lua library snippet').innerText()).toContain('/api/v1/lua/library.lua');

    await table.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(stored).toBeUndefined();
    await page.context().close();
  }, 60_000);
});
