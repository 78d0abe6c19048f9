import { describe, expect, it } from 'vitest';
import { call, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * Contract §23 in the dashboard, in Debian Chromium against the real server: a key bound before its first use (a
 * Luarmor user made with identifier and key_days) reads as its days from first use, never "Lifetime", and saving a
 * note leaves its time waiting for its first validation.
 */
const d = useDashboard();

describe('a key bound before its first use (contract §23)', () => {
  it('reads "7 days from first use" in the table and the details, with no Lifetime switch; a saved note keeps it', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const created = await call(app, 'POST', `/luarmor/v3/projects/${s.identifier}/users`, {
      headers: { authorization: s.serviceKey },
      body: { identifier: 'pc-early', key_days: 7 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const key = created.body.user_key as string;
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`, { width: 1280, height: 900 });
    const row = page.getByRole('table', { name: 'Keys' }).getByRole('row').filter({ hasText: key });
    await row.waitFor();
    expect(await row.getByRole('cell', { name: '7 days from first use' }).count()).toBe(1);
    expect(await row.getByText('Lifetime').count()).toBe(0);
    await row.getByRole('button', { name: key, exact: true }).click();
    const drawer = page.getByRole('dialog', { name: `Key ${key}` });
    await drawer.getByRole('table', { name: 'Key details' }).getByText('7 days from first use').waitFor();
    expect(await drawer.getByRole('switch', { name: 'Lifetime' }).count()).toBe(0);
    await drawer.getByText('Runs 7 days from first use', { exact: false }).waitFor();
    await drawer.getByRole('textbox', { name: 'Note' }).fill('bound for a friend');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await ctx.db.selectFrom('activeKeys').select('note').where('key', '=', key).executeTakeFirstOrThrow()).note)
      .toBe('bound for a friend');
    const stored = await ctx.db
      .selectFrom('activeKeys')
      .select(['pendingDays', 'expiresAt', 'hwid'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ pendingDays: 7, expiresAt: null, hwid: 'pc-early' });
    await page.context().close();
  }, 90_000);
});
