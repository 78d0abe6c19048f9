import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

// Contract §12.2 and §15 in a real browser: the Products page creates a product, refuses a number out of range with a
// sentence (never clamped), shows the delivery URLs to paste into each shop with copy buttons, takes the shop secrets
// write-only and lists the orders delivered.
const d = useDashboard();
const WAIT = { timeout: 20_000 };

describe('the Products page', () => {
  it('creates a product, shows its delivery URLs, saves a shop secret and lists a delivered order', async () => {
    const { ctx, app, db } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`);
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('button', { name: 'New product' }).click();

    const dialog = page.getByRole('dialog', { name: 'New product' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Monthly');
    await dialog.getByRole('combobox', { name: 'Expiration' }).selectOption('afterRedeem');
    await dialog.getByRole('textbox', { name: 'Days' }).fill('0');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => dialog.getByText('Days must be a whole number from 1 to 3650.').count(), WAIT).toBe(1);
    expect(await dialog.getByRole('textbox', { name: 'Days' }).inputValue()).toBe('0');
    expect(await db.selectFrom('products').select('id').where('serviceId', '=', s.id).execute()).toEqual([]);

    await dialog.getByRole('textbox', { name: 'Days' }).fill('30');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const card = page.getByRole('article', { name: 'Monthly' });
    await card.waitFor(WAIT);
    const product = await db.selectFrom('products').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(product).toMatchObject({ name: 'Monthly', expirationType: 'afterRedeem', days: 30 });
    expect(await card.textContent()).toContain('30 days from redemption');
    for (const [shop, kind] of [
      ['Sellix', 'sellix'],
      ['SellAuth', 'sellauth'],
      ['Any shop', 'generic'],
    ] as const) {
      expect(await card.getByLabel(`${shop} delivery URL`, { exact: true }).innerText()).toBe(
        `http://keyward.test/api/v1/public/shop/${kind}/${product.id}`,
      );
    }
    await card.getByRole('button', { name: 'Copy the Sellix delivery URL of Monthly' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`http://keyward.test/api/v1/public/shop/sellix/${product.id}`);

    // The secret is write-only: saved sealed, shown only as set.
    const secrets = page.getByRole('region', { name: 'Shop secrets' });
    await secrets.getByLabel('Generic shop secret').fill('browser-generic-secret');
    await secrets.getByRole('button', { name: 'Save secrets' }).click();
    await expect.poll(() => secrets.getByText('Set; type a new one to replace it.').count(), WAIT).toBe(1);
    expect(await page.content()).not.toContain('browser-generic-secret');
    const stored = await db.selectFrom('shopSettings').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(ctx.sealer.open(stored.genericSecretSealed!)).toBe('browser-generic-secret');

    // A shop delivers an order; the Orders list shows it with its keys.
    const body = JSON.stringify({ orderId: 'browser-order-1', quantity: 1 });
    const delivered = await call(app, 'POST', `/api/v1/public/shop/generic/${product.id}`, {
      body,
      headers: { 'x-keyward-signature': `sha256=${createHmac('sha256', 'browser-generic-secret').update(body).digest('hex')}` },
    });
    expect(delivered.status).toBe(200);
    await page.reload();
    const orders = page.getByRole('table', { name: 'Orders' });
    await orders.waitFor(WAIT);
    const row = await orders.getByRole('row').nth(1).innerText();
    expect(row).toContain('browser-order-1');
    expect(row).toContain('Any shop');
    expect(row).toContain(String(delivered.body).trim());
  });
});
