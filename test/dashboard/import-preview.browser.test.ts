import { describe, expect, it } from 'vitest';
import { call, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * Contract §27, the import's preview as a seller who is not a developer reads it, in Debian Chromium against the real
 * server: a file with a key already on the server says at once that nothing would be imported and what to tick (the
 * Import button is not offered to fail); a Luarmor key_days key reads as days from first use, not "never".
 */
const d = useDashboard();

const user = (user_key: string, extra: Record<string, unknown> = {}) => ({
  user_key,
  identifier: '',
  auth_expire: -1,
  banned: 0,
  ...extra,
});

describe('the import preview (contract §27)', () => {
  it('says a key already on the server blocks the import until Skip is ticked, and reads key_days as days from first use', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const tag = `${process.pid}${Date.now().toString(36)}`;
    const already = `prev_there_${tag}`;
    const first = await call(app, 'POST', '/api/v1/keys/api/keys/import', {
      key: s.serviceKey,
      body: { format: 'luarmor', data: [user(already, { identifier: 'pc-1' })] },
    });
    expect(first.status).toBe(201);
    const file = [
      user(`prev_days_${tag}`, { key_days: 30 }),
      user(`prev_pc_${tag}`, { identifier: 'pc-2', total_executions: 4 }),
      user(already),
    ];
    for (const width of [1280, 375]) {
      const page = await d.signedInPage(s.account, `/services/${s.id}/keys`, { width, height: 900 });
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Import keys' });
      await dialog.getByRole('combobox', { name: 'Format' }).selectOption('luarmor');
      await dialog
        .locator('input[type="file"]')
        .setInputFiles({ name: 'users.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
      await dialog.getByRole('button', { name: 'Preview import' }).click();
      const preview = dialog.getByRole('region', { name: 'Import preview' });
      await preview.getByText('Nothing can be imported as it is').waitFor();
      await preview.getByText(`1 key in this file is already on the server: ${already}.`, { exact: false }).waitFor();
      expect(await dialog.getByRole('button', { name: 'Import 3 keys' }).isDisabled(), `${width} px`).toBe(true);
      await preview.getByRole('table', { name: 'Import sample' }).getByText('30 days from first use', { exact: false }).waitFor();
      await dialog.getByRole('checkbox', { name: 'Skip keys that already exist' }).check();
      await dialog.getByRole('button', { name: 'Preview import' }).click();
      await preview.getByText('2 keys to import: 1 active, 1 unused').waitFor();
      await preview.getByText(`Skipped, already on the server (1): ${already}.`).waitFor();
      expect(await dialog.getByRole('button', { name: 'Import 2 keys' }).isEnabled(), `${width} px`).toBe(true);
      await page.context().close();
    }
    // Nothing was written by either preview.
    const stored = await ctx.db.selectFrom('activeKeys').select('key').where('serviceId', '=', s.id).execute();
    expect(stored.map((r) => r.key)).toEqual([already]);
  }, 90_000);
});
