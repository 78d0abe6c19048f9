import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import type { Browser } from 'playwright-core';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';

/**
 * The self-serve page as an end user meets it: Debian's Chromium (never a downloaded browser) loads
 * the page, the ALTCHA widget solves its proof-of-work in the page, and the reset lands in the database.
 */
const t = useTestApp(SIGNIN_ENV);
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  baseUrl = await t().app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe('GET /reset/:service in a real browser', () => {
  it('resets a bound key after the user passes the captcha, and shows when the next reset is possible', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey, { expirationType: 'lifetime' });
    const bound = await call(t().app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${key}&hwid=old-pc`);
    expect(bound.body.data.valid).toBe(true);

    const page = await browser.newPage();
    try {
      await page.goto(`${baseUrl}/reset/${s.identifier}`);
      await page.fill('#key', key!);
      await page.locator('altcha-widget input[type="checkbox"]').click();
      await page.locator('altcha-widget [data-state="verified"]').waitFor();
      await page.click('button[type="submit"]');
      await expect.poll(() => page.locator('#result').textContent()).toContain('Your HWID was reset');
    } finally {
      await page.close();
    }

    const row = await t()
      .ctx.db.selectFrom('activeKeys')
      .select(['hwid', 'hwidResetCount'])
      .where('key', '=', key!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ hwid: null, hwidResetCount: 1 });
  });
});
