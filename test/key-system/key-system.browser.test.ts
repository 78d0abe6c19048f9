import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import type { Browser, Page } from 'playwright-core';
import { useTestApp } from '../helpers/app.ts';
import { seedService, type SeededService } from '../helpers/seed.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';
import { configure, FakeProviders } from './helpers.ts';

/**
 * The get-key page as a free user meets it, in Debian's Chromium: captcha solved in the page, the
 * checkpoints, the key with its copy button; with provider none and with a fake Work.ink on loopback.
 */
const t = useTestApp(SIGNIN_ENV);
const fake = new FakeProviders();
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  baseUrl = await t().app.listen({ host: '127.0.0.1', port: 0 });
  t().ctx.config.baseUrl = baseUrl;
  t().ctx.config.keySystem.workinkApiUrl = await fake.listen();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await fake.close();
});

/** A new session of `s` in this browser that stops at the (fake) ad page, as if the user were still on it. */
async function startAndStayOnAdPage(page: Page, s: SeededService) {
  await page.context().clearCookies();
  await page.route(`${fake.url}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>an ad</p>' }));
  await solveAndStart(page, s);
  await page.waitForURL(`${fake.url}/**`);
  await page.unroute(`${fake.url}/**`);
}

async function solveAndStart(page: Page, s: SeededService) {
  await page.goto(`${baseUrl}/key/${s.identifier}`);
  await page.locator('altcha-widget input[type="checkbox"]').click();
  await page.locator('altcha-widget [data-state="verified"]').waitFor();
  await page.getByRole('button', { name: 'Get key' }).click();
}

async function workinkService() {
  const s = await seedService(t().ctx);
  await configure(t().app, s, {
    enabled: true,
    minSecondsPerCheckpoint: 0,
    maxKeysPerAddressPerDay: 0,
    provider: 'workink',
    links: ['https://work.ink/placeholder'],
    // The seller's Work.ink link ids; the fake's link page issues tokens of link 10345.
    providerToken: '10345',
  });
  // The real link is on work.ink (https only); here the fake's link page stands in for it.
  const dest = `${baseUrl}/key/${s.identifier}/return?token={TOKEN}`;
  await t()
    .ctx.db.updateTable('keySystemSettings')
    .set({ links: JSON.stringify([`${fake.url}/workink-link?dest=${encodeURIComponent(dest)}`]) })
    .where('serviceId', '=', s.id)
    .execute();
  return s;
}

describe('GET /key/:service in a real browser', () => {
  it('provider none: captcha, two checkpoints, then the key with a copy button and its expiry in local time', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true, checkpoints: 2, minSecondsPerCheckpoint: 0, keyHours: 5 });
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    try {
      await solveAndStart(page, s);
      await expect.poll(() => page.locator('#progress').textContent()).toBe('Checkpoint 2 of 2');
      await page.getByRole('link', { name: 'Continue to checkpoint 2' }).click();
      await page.waitForURL(`${baseUrl}/key/${s.identifier}`);
      const key = (await page.locator('#key').textContent())!;
      expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(await page.locator('#progress').textContent()).toBe('All 2 checkpoints passed');
      expect(await page.locator('#expires').textContent()).toMatch(/GMT\+9|JST/);
      await page.getByRole('button', { name: 'Copy key' }).click();
      await expect.poll(() => page.locator('#result').textContent()).toBe('Key copied.');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      // Reloading shows the same key.
      await page.reload();
      expect(await page.locator('#key').textContent()).toBe(key);
      const row = await t()
        .ctx.db.selectFrom('generatedKeys')
        .select(['note', 'serviceId'])
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ note: 'key-system', serviceId: s.id });
    } finally {
      await context.close();
    }
  });

  it('Work.ink: through the (fake) Work.ink link and back with its token to the key', async () => {
    const s = await workinkService();
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await solveAndStart(page, s);
      await page.locator('#key').waitFor();
      expect(page.url()).toBe(`${baseUrl}/key/${s.identifier}`);
      expect(await page.locator('#key').textContent()).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(fake.workinkTokens.has(fake.lastWorkinkToken)).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('shows the refusals: too fast (with a retry), a token Work.ink rejects, a token already spent', async () => {
    const slow = await seedService(t().ctx);
    await configure(t().app, slow, { enabled: true, minSecondsPerCheckpoint: 2 });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await solveAndStart(page, slow);
      // Contract §15 (third round): with provider none the minimum time is counted down, not shown as a failure.
      await expect.poll(() => page.locator('#result').textContent()).toMatch(/^Please wait \d+ seconds?…$/);
      t().clock.advance(2_000);
      await page.locator('#key').waitFor();
      expect(await page.locator('#key').textContent()).toMatch(/^[A-Za-z0-9]{32}$/);

      const s = await workinkService();
      await solveAndStart(page, s);
      await page.locator('#key').waitFor();
      const spent = fake.lastWorkinkToken;

      // A new session in this browser that stops at the ad page; then a made-up token, then the spent one.
      await startAndStayOnAdPage(page, s);
      await page.goto(`${baseUrl}/key/${s.identifier}/return?token=made-up-token`);
      await expect.poll(() => page.locator('#result').textContent()).toMatch(/did not confirm this checkpoint/);
      await page.goto(`${baseUrl}/key/${s.identifier}/return?token=${spent}`);
      await expect.poll(() => page.locator('#result').textContent()).toMatch(/already used/);
      expect(await page.locator('#key').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('shows a provider that is down as a clear message with "Try again", and no key', async () => {
    const s = await workinkService();
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await startAndStayOnAdPage(page, s);
      // The fake Work.ink answers 503 to this token's check.
      await page.goto(`${baseUrl}/key/${s.identifier}/return?token=down-${Date.now()}`);
      await expect
        .poll(() => page.locator('#result').textContent())
        .toBe('Work.ink answered 503; your progress is kept, try again in a moment');
      expect(await page.locator('#progress').textContent()).toBe('Checkpoint not passed');
      await expect.poll(() => page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
      expect(await page.locator('#key').count()).toBe(0);
      const keys = await t().ctx.db.selectFrom('generatedKeys').select('key').where('serviceId', '=', s.id).execute();
      expect(keys).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('over the per-address limit, says when the next key can be earned, in the user’s time zone', async () => {
    const s = await seedService(t().ctx);
    await configure(t().app, s, { enabled: true, minSecondsPerCheckpoint: 0, maxKeysPerAddressPerDay: 1 });
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-US' });
    const page = await context.newPage();
    try {
      const issuedAt = t().clock.now;
      await solveAndStart(page, s);
      await page.locator('#key').waitFor();
      // Another session from the same address (cookies cleared): refused at the start, with the time it may go again.
      await context.clearCookies();
      await solveAndStart(page, s);
      await expect.poll(() => page.locator('#result').textContent()).toMatch(/next key can be earned at/);
      const next = new Date(issuedAt + 24 * 3_600_000);
      const tokyo = next.toLocaleString('en-US', {
        timeZone: 'Asia/Tokyo',
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZoneName: 'short',
      });
      expect(await page.locator('#result').textContent()).toBe(
        `You have earned the most keys allowed today; the next key can be earned at ${tokyo}.`,
      );
      expect(tokyo).toMatch(/GMT\+9/);
      expect(page.url()).toBe(`${baseUrl}/key/${s.identifier}`);
    } finally {
      await context.close();
    }
  });
});
