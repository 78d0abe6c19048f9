import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import type { Browser, Page } from 'playwright-core';
import { useTestApp, type TestApp } from '../helpers/app.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';

/**
 * One app listening on a port and one Debian Chromium per browser test file (never a downloaded
 * browser). The app is the per-file database's, so tests can check what the dashboard wrote.
 */

export function useDashboard(env: Record<string, string> | (() => Record<string, string>) = {}) {
  const t = useTestApp(() => ({ ...SIGNIN_ENV, ...(typeof env === 'function' ? env() : env) }));
  let browser: Browser | undefined;
  let baseUrl = '';
  beforeAll(async () => {
    baseUrl = await t().app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    app: (): TestApp => t(),
    url: (path: string) => `${baseUrl}${path}`,
    /** A fresh context (own cookies) with clipboard access, so "Copy" buttons can be read back. */
    async newPage(): Promise<Page> {
      const context = await browser!.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
      return context.newPage();
    },
  };
}

/** Passes the ALTCHA widget the way a person does: ticks it and waits for the proof-of-work. */
export async function solveCaptcha(page: Page) {
  await page.locator('altcha-widget input[type="checkbox"]').click();
  await page.locator('altcha-widget [data-state="verified"]').waitFor();
}

export async function signInWithPassword(page: Page, url: string, username: string, password: string) {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await solveCaptcha(page);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
