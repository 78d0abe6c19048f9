import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { seedAccount } from '../helpers/seed.ts';
import { solveCaptcha, useDashboard } from './browser.ts';

/**
 * Contract §22: a sign-in refused for too many requests from the address (429 RATE_LIMITED, §5) says how long to
 * wait and never claims the account key still signs in; that hint belongs to the per-username lockout (§10) only,
 * and only to someone not already signing in with the account key.
 */
const d = useDashboard({ RATE_LIMIT_LOGIN_PER_MINUTE: '2' });

async function attempt(page: Page, username: string, password: string) {
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await solveCaptcha(page);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('the sign-in page on 429', () => {
  it('for the per-username lockout: how long to wait, and the account key hint', async () => {
    const { ctx, db } = d.app();
    const account = await seedAccount(ctx);
    await db
      .updateTable('accounts')
      .set({ loginLockedUntil: Date.now() + 90_000 })
      .where('id', '=', account.id)
      .execute();
    const page = await d.newPage();
    await page.goto(d.url('/login'));
    await attempt(page, account.username, account.password);
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.innerText()).toMatch(/^Too many failed sign-ins for this account: wait (1|2) minutes?, then try again\./);
    expect(await alert.innerText()).toContain('You can still sign in with the account key');
    await page.context().close();
  }, 60_000);

  it('for too many requests from the address: how long to wait, never the account key', async () => {
    const page = await d.newPage();
    await page.goto(d.url('/login'));
    const alert = page.getByRole('alert');
    // Different unknown names each time, so no per-username lockout is involved: only the address's budget (2 a minute).
    for (let i = 0; i < 3; i++) await attempt(page, `nobody_${i}_${Date.now()}`, 'a wrong password');
    await expect
      .poll(() => alert.innerText())
      .toMatch(/^Too many sign-in attempts from your address: wait \d+ (seconds?|minutes?), then try again\.$/);
    expect(await alert.innerText()).not.toContain('account key');
    await page.context().close();
  }, 60_000);
});
