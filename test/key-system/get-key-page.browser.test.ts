import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { useTestApp } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { configure } from './helpers.ts';

/**
 * Contract §15: the get-key page wears the seller's title and accent colour, and with provider none the first
 * press waits out the minimum time with a countdown instead of showing "Checkpoint not passed".
 */
const t = useTestApp(SIGNIN_ENV);
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  baseUrl = await t().app.listen({ host: '127.0.0.1', port: 0 });
  t().ctx.config.baseUrl = baseUrl;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe('the get-key page, styled and patient', () => {
  it('provider none with a minimum time: the seller’s title and colour, a countdown, then the key and its script_key line', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, {
      enabled: true,
      checkpoints: 1,
      minSecondsPerCheckpoint: 2,
      maxKeysPerAddressPerDay: 0,
      pageTitle: 'Free keys for Pet Sim',
      accentColor: '#FF8800',
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${baseUrl}/key/${s.identifier}`);
      await page.getByRole('heading', { name: 'Free keys for Pet Sim' }).waitFor();
      const start = page.getByRole('button', { name: 'Get key' });
      expect(await start.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 136, 0)');
      await page.getByRole('progressbar', { name: 'Checkpoints passed' }).waitFor();

      await page.locator('altcha-widget input[type="checkbox"]').click();
      await page.locator('altcha-widget [data-state="verified"]').waitFor();
      await start.click();
      // Back on the return page at once: a countdown, never a failure.
      await expect.poll(() => page.locator('#result').textContent()).toMatch(/^Please wait \d+ seconds?…$/);
      expect(await page.locator('#progress').textContent()).not.toContain('not passed');
      expect(await page.locator('#result').getAttribute('class')).not.toContain('fail');
      // The server's clock is the test's: the minimum time passes when the test says so.
      t().clock.advance(2_000);
      await page.waitForURL(`${baseUrl}/key/${s.identifier}`);
      const key = (await page.locator('#key').textContent())!;
      expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(await page.locator('#snippet').textContent()).toBe(`script_key = "${key}"`);
      await page.getByRole('button', { name: 'Copy line' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
