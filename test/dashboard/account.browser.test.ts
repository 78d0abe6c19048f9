import { createRequire } from 'node:module';
import type jsQRTyped from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { recordBackup } from '../../src/modules/admin/admin.service.ts';
import { seedAccount } from '../helpers/seed.ts';
import { totpCode } from '../signin/helpers.ts';
import { signInWithPassword, solveCaptcha, useDashboard } from './browser.ts';

// jsqr is CommonJS whose module.exports is the decoder (its typings describe an ES default export).
const jsQR = createRequire(import.meta.url)('jsqr') as typeof jsQRTyped.default;

/** Account page (account key, two-factor with the QR code), sign-in errors, sign out and a staff action, in Debian's Chromium. */
const d = useDashboard();

/**
 * The server process keeps real time, and a TOTP code is good once, for its 30-second step or the one next to it.
 * The test spends three codes: the previous step's, the current one's and the next one's, which the server takes as
 * long as enabling happens in the step they were counted from (so it does not start in a step's last 2 seconds).
 */
const STEP = 30_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const codeFor = (secret: string, step: number) => totpCode(secret, step * STEP);
async function currentStepWithTimeLeft(): Promise<number> {
  await expect.poll(() => Date.now() % STEP, { timeout: 5_000, interval: 100 }).toBeLessThan(STEP - 2_000);
  return Math.floor(Date.now() / STEP);
}

/** What the QR code image on the page encodes, read from its PNG the way a phone's camera would. */
async function decodeQr(page: Page, name: string): Promise<string> {
  const src = await page.getByRole('img', { name }).getAttribute('src');
  const match = /^data:image\/png;base64,(.+)$/.exec(src ?? '');
  expect(match, `the QR code is a PNG data URL: ${src?.slice(0, 40)}`).not.toBeNull();
  const png = PNG.sync.read(Buffer.from(match![1]!, 'base64'));
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  expect(decoded, 'the QR code decodes').not.toBeNull();
  return decoded!.data;
}

describe('dashboard account and staff pages in a real browser', () => {
  it('reveals and regenerates the account key, enables two-factor from the decoded QR code, refuses a wrong code at sign-in, signs in with the right one, and turns it off again', async () => {
    const { ctx } = d.app();
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
    // The QR code carries the otpauth URI of that same secret, for this account, issued by Keyward.
    const uri = new URL(await decodeQr(page, 'QR code'));
    expect({ protocol: uri.protocol, host: uri.host, path: decodeURIComponent(uri.pathname) }).toEqual({
      protocol: 'otpauth:',
      host: 'totp',
      path: `/Keyward:${account.username}`,
    });
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({ secret, issuer: 'Keyward', period: '30', digits: '6' });
    const step = await currentStepWithTimeLeft();
    await twoFactor.getByRole('textbox', { name: 'Authenticator code' }).fill(codeFor(secret, step - 1));
    await twoFactor.getByRole('button', { name: 'Enable two-factor' }).click();
    // The server's state shows on the page; the sign-in below proves the code is now required.
    await twoFactor.getByRole('button', { name: 'Disable two-factor' }).waitFor();
    await page.context().close();

    // A new browser session now needs the code: a wrong one is refused with the reason, the next step's code signs in.
    const again = await d.newPage();
    await signInWithPassword(again, d.url('/login?next=%2Faccount'), account.username, account.password);
    const code = again.getByRole('textbox', { name: 'Two-factor code' });
    await code.fill(codeFor(secret, step - 1) === '000000' ? '111111' : '000000');
    // Issue 22 item 10: the code step follows the password without a second captcha.
    expect(await again.locator('altcha-widget').count()).toBe(0);
    await again.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => again.getByRole('alert').innerText()).toContain('two-factor code is wrong');
    expect(again.url()).toContain('/login');
    await code.fill(codeFor(secret, step));
    await again.getByRole('button', { name: 'Sign in', exact: true }).click();
    await again.getByRole('heading', { name: 'Account', exact: true }).waitFor();

    // Turning it off takes a fresh code: a wrong one is refused on the page, and afterwards the password alone signs in.
    const section = again.getByRole('region', { name: 'Two-factor authentication' });
    await section.getByRole('textbox', { name: 'Authenticator code' }).fill(codeFor(secret, step) === '000000' ? '111111' : '000000');
    await section.getByRole('button', { name: 'Disable two-factor' }).click();
    await section.getByRole('alert').waitFor();
    await section.getByRole('textbox', { name: 'Authenticator code' }).fill(codeFor(secret, step + 1));
    await section.getByRole('button', { name: 'Disable two-factor' }).click();
    await section.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
    await again.context().close();
    const last = await d.newPage();
    await signInWithPassword(last, d.url('/login?next=%2Faccount'), account.username, account.password);
    await last.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    await last.context().close();
  }, 60_000);

  it('says so when password sign-in is locked after failures, and the account key still signs in', async () => {
    const { db } = d.app();
    const account = await seedAccount(d.app().ctx);
    await db
      .updateTable('accounts')
      .set({ failedLoginCount: 5, loginLockedUntil: Date.now() + 10 * 60_000 })
      .where('id', '=', account.id)
      .execute();
    const page = await d.newPage();
    await signInWithPassword(page, d.url('/login'), account.username, account.password);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Too many failed sign-ins for this account: wait');
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.getByLabel('Sign in with API key').check();
    await page.getByRole('textbox', { name: 'Account key' }).fill(account.accountKey);
    await solveCaptcha(page);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'New service' }).waitFor();
    await page.context().close();
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

    // Sign out from the account menu: the session is gone, on the page and on the server.
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    const session = await page.evaluate(async () => (await fetch('/api/v1/auth/session')).status);
    expect(session).toBe(401);
    await page.goto(d.url('/services'));
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === '/services');
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
  it('shows an admin the last backup (none yet, then one from two hours ago), and a moderator no backup section', async () => {
    const { ctx } = d.app();
    const admin = await seedAccount(ctx, 'admin');
    const page = await d.signedInPage(admin, '/staff');
    const backups = page.getByRole('region', { name: 'Backups' });
    await backups.getByText('No backup yet').waitFor();
    await backups.getByText('npx keyward backup --out <file>').waitFor();

    // What `keyward backup` records when it finishes (src/cli/backup.ts), on the server's database.
    await recordBackup(ctx.db, {
      finishedAt: Date.now() - 2 * HOUR - MINUTE,
      sizeBytes: 3 * 1024 * 1024,
      keyCount: 1234,
      databaseKind: ctx.dialect,
    });
    await page.reload();
    await backups.getByText(/^Last backup 2 hours ago \(.+\): 3\.0 MB, 1,234 keys\.$/).waitFor();
    expect(await backups.getByText('No backup yet').count()).toBe(0);
    await page.context().close();

    const moderator = await d.signedInPage(await seedAccount(ctx, 'moderator'), '/staff');
    await moderator.getByRole('table', { name: 'Accounts' }).waitFor();
    expect(await moderator.getByRole('region', { name: 'Backups' }).count()).toBe(0);
    await moderator.context().close();
  }, 60_000);
});
