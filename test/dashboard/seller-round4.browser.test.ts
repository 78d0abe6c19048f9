import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * Contract §22, what a new seller tripped on, in Debian Chromium against the real server: keys whose time starts at
 * redemption never read "Lifetime"; at 375 px the Variables page and the Versions dialog fit; the audit log speaks
 * in sentences; the event-endpoint form takes an http:// origin the server allows.
 */
const d = useDashboard({ EVENT_WEBHOOK_ORIGINS: 'http://127.0.0.1:9' });

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
/** Whether the element lies inside the viewport's width (no sideways scrolling needed to reach it). */
const onScreen = async (page: Page, locator: Locator) => {
  const box = await locator.boundingBox();
  const width = page.viewportSize()!.width;
  return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= width;
};

describe('keys whose time starts at redemption (contract §22)', () => {
  it('read "30 days from redemption" in the table, the phone card and the details, with no Lifetime switch', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [key] = await generateKeys(app, s.serviceKey, { expirationType: 'afterRedeem', days: 30 });
    for (const width of [1280, 375]) {
      const page = await d.signedInPage(s.account, `/services/${s.id}/keys`, { width, height: 900 });
      const row = page.getByRole('table', { name: 'Keys' }).getByRole('row').filter({ hasText: key! });
      await row.waitFor();
      expect(await row.getByRole('cell', { name: '30 days from redemption' }).count(), `${width} px`).toBe(1);
      expect(await row.getByText('Lifetime').count(), `${width} px`).toBe(0);
      if (width === 1280) {
        await row.getByRole('button', { name: key!, exact: true }).click();
        const drawer = page.getByRole('dialog', { name: `Key ${key}` });
        await drawer.getByRole('table', { name: 'Key details' }).getByText('30 days from redemption').waitFor();
        expect(await drawer.getByRole('switch', { name: 'Lifetime' }).count()).toBe(0);
        await drawer.getByText('Runs 30 days from redemption', { exact: false }).waitFor();
        // Saving a note keeps the key's time starting at redemption.
        await drawer.getByRole('textbox', { name: 'Note' }).fill('sold on Sellix');
        await drawer.getByRole('button', { name: 'Save' }).click();
        await expect
          .poll(
            async () => (await ctx.db.selectFrom('generatedKeys').select('note').where('key', '=', key!).executeTakeFirstOrThrow()).note,
          )
          .toBe('sold on Sellix');
        const stored = await ctx.db
          .selectFrom('generatedKeys')
          .select(['durationDays', 'expiresAt'])
          .where('key', '=', key!)
          .executeTakeFirstOrThrow();
        expect(stored).toEqual({ durationDays: 30, expiresAt: null });
      }
      await page.context().close();
    }
  }, 90_000);
});

describe('at 375 px (contract §22)', () => {
  it('the Variables page fits: a wide value box, Remove on screen, no sideways scroll', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const saved = await call(app, 'PUT', '/api/v1/keys/api/variables', {
      key: s.serviceKey,
      body: { variables: { motd: 'Update 2 is live! Join the Discord for the changelog.' } },
    });
    expect(saved.status).toBe(200);
    const page = await d.signedInPage(s.account, `/services/${s.id}/variables`, { width: 375, height: 812 });
    const value = page.getByRole('textbox', { name: 'Variable value 1' });
    await value.waitFor();
    expect((await value.boundingBox())!.width).toBeGreaterThan(250);
    expect(await onScreen(page, page.getByRole('button', { name: 'Remove variable 1' }))).toBe(true);
    expect(await overflow(page)).toBe(0);
    await page.context().close();
  }, 60_000);

  it('the Versions dialog shows Restore on screen without a sideways scroll', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const uploaded = await call(app, 'POST', '/api/v1/vss/api/scripts', {
      key: s.serviceKey,
      body: { name: 'game', code: 'print("one")' },
    });
    const id = uploaded.body.data.id as string;
    await call(app, 'PUT', `/api/v1/vss/api/scripts/${id}`, { key: s.serviceKey, body: { code: 'print("two")' } });
    const page = await d.signedInPage(s.account, `/services/${s.id}/scripts`, { width: 375, height: 812 });
    await page.getByRole('button', { name: 'Versions: game' }).click();
    const dialog = page.getByRole('dialog', { name: 'Versions of game' });
    const restore = dialog.getByRole('button', { name: 'Restore version 1' });
    await restore.waitFor();
    expect(await onScreen(page, restore)).toBe(true);
    const sideways = await dialog.getByRole('table', { name: 'Versions' }).evaluate((table) => {
      let node: Element | null = table;
      let worst = 0;
      while (node) {
        worst = Math.max(worst, node.scrollWidth - node.clientWidth);
        node = node.parentElement;
      }
      return worst;
    });
    expect(sideways).toBe(0);
    await page.context().close();
  }, 60_000);
});

describe('the audit log in words (contract §22)', () => {
  it('says every action as a sentence, names scripts and products, and lists only what changed', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const k = { key: s.serviceKey };
    const [key] = await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 30 });
    const script = await call(app, 'POST', '/api/v1/vss/api/scripts', { ...k, body: { name: 'main-loader', code: 'print("one")' } });
    const id = script.body.data.id as string;
    await call(app, 'PUT', `/api/v1/vss/api/scripts/${id}`, { ...k, body: { code: 'print("two")' } });
    await call(app, 'POST', `/api/v1/vss/api/scripts/${id}/versions/1/restore`, k);
    await call(app, 'PUT', `/api/v1/vss/api/scripts/${id}`, { ...k, body: { enabled: false, disabledMessage: 'Back soon' } });
    await call(app, 'PUT', `/api/v1/vss/api/scripts/${id}`, { ...k, body: { enabled: true } });
    await call(app, 'PUT', '/api/v1/keys/api/variables', { ...k, body: { variables: { motd: 'hi' } } });
    await call(app, 'POST', '/api/v1/keys/api/event-endpoints', { ...k, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
    const product = await call(app, 'POST', '/api/v1/keys/api/products', {
      ...k,
      body: { name: 'Monthly', expirationType: 'afterRedeem', days: 30, isPremium: false, maxHwids: 1 },
    });
    await call(app, 'PUT', `/api/v1/keys/api/products/${product.body.data.id}`, { ...k, body: { note: 'on Sellix' } });
    const everything = { note: 'vip', status: 'active', isPremium: false, noHwidValidation: false, maxHwids: 1, chatId: null };
    await call(app, 'PUT', '/api/v1/keys/api/generated-key', { ...k, body: { key, ...everything } });

    const page = await d.signedInPage(s.account, `/services/${s.id}/audit-log`, { width: 1280, height: 1200 });
    const table = page.getByRole('table').first();
    await table.getByRole('row').nth(10).waitFor();
    const text = await table.innerText();
    for (const sentence of [
      'Restored version 1 of the script main-loader (it was on version 2)',
      'Changed the script main-loader (version 2 of the code)',
      'Changed the script main-loader (switched off, message “Back soon”)',
      'Changed the script main-loader (switched on)',
      'Changed the variables (motd)',
      'Added the event endpoint http://127.0.0.1:9/hook',
      'Created the product Monthly',
      'Changed the product Monthly (note)',
      `Edited key ${key!.slice(0, 4)}…${key!.slice(-4)} (note)`,
    ]) {
      expect(text, sentence).toContain(sentence);
    }
    for (const raw of ['script.restore', 'variables.update', 'eventEndpoint.create', 'product.update', 'codeChanged', id]) {
      expect(text, raw).not.toContain(raw);
    }
    await page.context().close();
  }, 90_000);
});

describe('the event-endpoint form (contract §22)', () => {
  it('accepts an http:// address on an origin the server allows', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/event-endpoints`);
    await page.getByRole('textbox', { name: 'Endpoint URL' }).fill('http://127.0.0.1:9/from-the-form');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect
      .poll(async () => (await ctx.db.selectFrom('eventEndpoints').select('url').where('serviceId', '=', s.id).execute()).map((r) => r.url))
      .toEqual(['http://127.0.0.1:9/from-the-form']);
    await page.context().close();
  }, 60_000);
});
