import { describe, expect, it } from 'vitest';
import { seedAccount } from '../helpers/seed.ts';
import { totpCode } from '../signin/helpers.ts';
import { signInWithPassword, solveCaptcha, useDashboard } from './browser.ts';

/** Account page (account key, two-factor with the QR code) and a staff action, in Debian's Chromium. */
const d = useDashboard();

describe('dashboard account and staff pages in a real browser', () => {
  it('reveals and regenerates the account key, enables two-factor from the QR secret, signs in with the code, and turns it off again', async () => {
    const { ctx, clock } = d.app();
    const account = await seedAccount(ctx);
    const page = await d.newPage();
    await signInWithPassword(page, d.url('/login?next=%2Faccount'), account.username, account.password);

    const keySection = page.getByRole('region', { name: 'Account key' });
    await keySection.getByRole('button', { name: 'Reveal' }).click();
    await expect.poll(() => keySection.getByLabel('Account key value').innerText()).toBe(account.accountKey);
    await keySection.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => keySection.getByLabel('Account key value').innerText()).not.toBe(account.accountKey);

    const twoFactor = page.getByRole('region', { name: 'Two-factor authentication' });
    await twoFactor.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await twoFactor.getByRole('img', { name: 'QR code' }).waitFor();
    const secret = await twoFactor.getByLabel('Two-factor secret').innerText();
    await twoFactor.getByRole('textbox', { name: 'Authenticator code' }).fill(totpCode(secret, clock.now));
    await twoFactor.getByRole('button', { name: 'Enable two-factor' }).click();
    // The server's state shows on the page; the sign-in below proves the code is now required.
    await twoFactor.getByRole('button', { name: 'Disable two-factor' }).waitFor();
    await page.context().close();

    // A new browser session now needs the code.
    clock.advance(30_000); // the next code: a spent one is refused
    const again = await d.newPage();
    await signInWithPassword(again, d.url('/login?next=%2Faccount'), account.username, account.password);
    await again.getByRole('textbox', { name: 'Two-factor code' }).fill(totpCode(secret, clock.now));
    await solveCaptcha(again);
    await again.getByRole('button', { name: 'Sign in', exact: true }).click();
    await again.getByRole('heading', { name: 'Account', exact: true }).waitFor();

    // Turning it off takes a fresh code: a wrong one is refused on the page, and afterwards the password alone signs in.
    const section = again.getByRole('region', { name: 'Two-factor authentication' });
    await section.getByRole('textbox', { name: 'Authenticator code' }).fill('000000');
    await section.getByRole('button', { name: 'Disable two-factor' }).click();
    await section.getByRole('alert').waitFor();
    clock.advance(30_000);
    await section.getByRole('textbox', { name: 'Authenticator code' }).fill(totpCode(secret, clock.now));
    await section.getByRole('button', { name: 'Disable two-factor' }).click();
    await section.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
    await again.context().close();
    const last = await d.newPage();
    await signInWithPassword(last, d.url('/login?next=%2Faccount'), account.username, account.password);
    await last.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    await last.context().close();
  }, 60_000);

  it('registers a new account, refusing a short password with the field named', async () => {
    const { ctx } = d.app();
    const page = await d.newPage();
    await page.goto(d.url('/register'));
    await page.getByRole('textbox', { name: 'Username' }).fill('new-seller');
    await page.getByRole('textbox', { name: 'Password' }).fill('short');
    await solveCaptcha(page);
    await page.getByRole('button', { name: 'Register' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('password');
    expect(await ctx.db.selectFrom('accounts').select('id').where('username', '=', 'new-seller').execute()).toEqual([]);

    await page.getByRole('textbox', { name: 'Password' }).fill('a long enough password');
    await solveCaptcha(page);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/login$/);
    expect(await ctx.db.selectFrom('accounts').select('role').where('username', '=', 'new-seller').execute()).toEqual([{ role: 'user' }]);
    await signInWithPassword(page, d.url('/login'), 'new-seller', 'a long enough password');
    await page.getByRole('button', { name: 'New service' }).waitFor();
    await page.context().close();
  }, 60_000);

  it('lets an admin disable an account and change its role from the staff page', async () => {
    const { ctx } = d.app();
    const admin = await seedAccount(ctx, 'admin');
    const user = await seedAccount(ctx);
    const page = await d.newPage();
    await signInWithPassword(page, d.url('/login?next=%2Fstaff'), admin.username, admin.password);
    await page.getByRole('searchbox', { name: 'Search accounts' }).fill(user.username);
    const row = page.getByRole('table', { name: 'Accounts' }).getByRole('row').filter({ hasText: user.username });
    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    const stored = await ctx.db.selectFrom('accounts').select('disabled').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(Number(stored.disabled)).toBe(1);

    await row.getByRole('combobox', { name: `Role of ${user.username}` }).selectOption('moderator');
    await expect
      .poll(async () => (await ctx.db.selectFrom('accounts').select('role').where('id', '=', user.id).executeTakeFirstOrThrow()).role)
      .toBe('moderator');
    await page.context().close();
  }, 60_000);
});
