import { describe, expect, it } from 'vitest';
import { seedService } from '../helpers/seed.ts';
import { signInWithPassword, useDashboard } from './browser.ts';

/** Keyless, blacklist, key system, analytics and audit log pages against a real listening app, in Debian's Chromium. */
const d = useDashboard();

describe('dashboard service sections in a real browser', () => {
  it('adds a keyless HWID and a blacklist entry, saves the key system, draws analytics with live counts and a range change, and lists the audit log', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    // Without a session, a section's address goes to the sign-in page, and signing in comes back to it.
    const page = await d.newPage();
    await page.goto(d.url(`/services/${s.id}/keyless`));
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === `/services/${s.id}/keyless`);
    await signInWithPassword(page, page.url(), s.account.username, s.account.password);
    await page.waitForURL((url) => url.pathname === `/services/${s.id}/keyless`);

    await page.getByRole('textbox', { name: 'HWID to add' }).fill('free-pc');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('region', { name: 'Find a keyless HWID' }).getByText('free-pc').waitFor();
    expect(await ctx.db.selectFrom('keyless').select('hwid').where('serviceId', '=', s.id).execute()).toEqual([{ hwid: 'free-pc' }]);

    await page.getByRole('link', { name: 'Blacklist' }).click();
    await page.getByRole('button', { name: 'Blacklist HWID' }).click();
    const dialog = page.getByRole('dialog', { name: 'Blacklist an HWID' });
    await dialog.getByRole('textbox', { name: 'HWID' }).fill('cheater-pc');
    await dialog.getByRole('textbox', { name: 'Reason' }).fill('chargeback');
    await dialog.getByRole('button', { name: 'Blacklist' }).click();
    await page.getByRole('table', { name: 'Blacklist' }).getByText('cheater-pc').waitFor();

    await page.getByRole('link', { name: 'Key system' }).click();
    await page.getByLabel('Enabled').check();
    await page.getByRole('textbox', { name: 'Key lifetime (hours)' }).fill('12');
    await page.getByRole('button', { name: 'Save key system' }).click();
    await page.getByText('Key system saved').waitFor();
    const keySystem = await (await fetch(d.url('/api/v1/keys/api/key-system'), { headers: { 'x-api-key': s.serviceKey } })).json();
    expect(keySystem.data).toMatchObject({ enabled: true, keyHours: 12 });

    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('figure', { name: 'Executions and validations over time' }).locator('svg.recharts-surface').first().waitFor();
    const now = page.getByRole('region', { name: 'Right now' });
    await expect.poll(() => now.getByLabel('Keyless HWIDs').innerText()).toBe('1');
    await expect.poll(() => now.getByLabel('Blacklisted HWIDs').innerText()).toBe('1');
    const hourly = page.waitForRequest((r) => r.url().includes('/keys/api/analytics') && r.url().includes('interval=hour'));
    await page.getByRole('radiogroup', { name: 'Range' }).getByText('24 hours', { exact: true }).click();
    await hourly;

    await page.getByRole('link', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit log' });
    for (const sentence of [
      'Added HWID free-pc to the keyless list',
      'Blacklisted HWID cheater-pc (chargeback)',
      /^Changed the key system/,
    ])
      await audit.getByRole('cell', { name: sentence }).waitFor();
    // The filter offers actions in words; no internal action name is shown.
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'HWID blacklisted' });
    await expect.poll(() => audit.getByRole('row').count()).toBe(2);
    expect(await audit.innerText()).not.toContain('blacklist.add');
    await page.context().close();
  }, 60_000);
});
