import { describe, expect, it } from 'vitest';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * Issue 22 items 6, 7 and 8 in Chromium: a service opens on its overview (stat cards, what needs attention, the
 * buyers' links), keyless HWIDs are listed and searched, import recognises a pasted export, and the audit log
 * says what a row button did to which key.
 */
const d = useDashboard();

describe('overview, keyless list, import by paste and the audit log as sentences', () => {
  it('opens a service on its overview with today’s numbers and the self-serve reset link', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [used] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', count: 3 });
    expect((await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${used}&hwid=pc-1`)).body.data.valid).toBe(true);
    const { name } = await ctx.db.selectFrom('services').select('name').where('id', '=', s.id).executeTakeFirstOrThrow();
    const page = await d.signedInPage(s.account, '/services');
    await page.getByRole('link', { name, exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/services/${s.id}/overview`);
    const card = (name: string) => page.getByRole('region', { name });
    await expect.poll(() => card('Active keys').innerText()).toContain('1');
    await expect.poll(() => card('Generated keys').innerText()).toContain('2');
    // Validations are counted in batches that reach analytics within seconds (contract §7.5).
    await expect
      .poll(async () => {
        await page.reload();
        return card('Validations today').innerText();
      })
      .toMatch(/\n1\n/);
    await card('Validations today').getByRole('img', { name: 'Validations over the last 7 days' }).waitFor();
    await page.getByRole('region', { name: 'Needs attention' }).getByText('Nothing needs your attention.').waitFor();
    const reset = page.getByRole('link', { name: new RegExp(`/reset/${s.identifier}$`) });
    expect(await reset.getAttribute('href')).toBe(`/reset/${s.identifier}`);
    await page.context().close();
  }, 60_000);

  it('lists and searches keyless HWIDs, imports a pasted Luarmor answer, and logs a row ban as a sentence', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    for (const hwid of ['office-pc', 'home-pc', 'laptop']) {
      expect((await call(app, 'POST', '/api/v1/keys/api/keyless', { key: s.serviceKey, body: { hwid } })).status).toBe(201);
    }
    const page = await d.signedInPage(s.account, `/services/${s.id}/keyless`);
    const table = page.getByRole('table', { name: 'Keyless HWIDs' });
    await expect.poll(() => table.getByRole('row').count()).toBe(4);
    await page.getByRole('searchbox', { name: 'Search HWIDs' }).fill('-PC');
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    expect(await table.getByText('laptop').count()).toBe(0);

    // Import: Luarmor's { users: [...] } pasted, recognised before importing; the unique-per-server warning shows.
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import keys' });
    await dialog.getByText('Keys are unique on this whole server', { exact: false }).waitFor();
    const users = { success: true, users: [{ user_key: 'pasted-key-0001', identifier: '', auth_expire: -1, note: 'pasted' }] };
    await dialog.getByRole('textbox', { name: 'Or paste the export' }).fill(JSON.stringify(users));
    await dialog.getByText('Recognised: Luarmor users (JSON), 1 record.').waitFor();
    await dialog.getByRole('button', { name: 'Preview import' }).click();
    await dialog.getByRole('button', { name: 'Import 1 key' }).click();
    const keys = page.getByRole('table', { name: 'Keys' });
    await keys.getByText('pasted-key-0001').waitFor();
    expect(
      await ctx.db.selectFrom('generatedKeys').select(['note']).where('key', '=', 'pasted-key-0001').executeTakeFirstOrThrow(),
    ).toEqual({ note: 'pasted' });

    // A row's Ban, then the audit log names the key and says who did it.
    await keys.getByRole('row').filter({ hasText: 'pasted-key-0001' }).getByRole('button', { name: 'Ban' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(
        async () =>
          (await ctx.db.selectFrom('generatedKeys').select('status').where('key', '=', 'pasted-key-0001').executeTakeFirstOrThrow()).status,
      )
      .toBe('banned');
    await page.getByRole('link', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit log' });
    const row = audit.getByRole('row').filter({ hasText: 'Banned key past…0001' });
    await row.waitFor();
    expect(await row.innerText()).toContain('by you in the dashboard');
    expect(await audit.innerText()).not.toContain('{"');
    await page.context().close();
  }, 60_000);

  it('moves ticked keys to another of the seller’s services from the selection bar', async () => {
    const { ctx, app } = d.app();
    const from = await seedService(ctx);
    const to = await seedService(ctx, from.account);
    const { name } = await ctx.db.selectFrom('services').select('name').where('id', '=', to.id).executeTakeFirstOrThrow();
    const [a, b] = await generateKeys(app, from.serviceKey, { expirationType: 'lifetime', count: 2 });
    const page = await d.signedInPage(from.account, `/services/${from.id}/keys`);
    await page.getByRole('checkbox', { name: `Select ${a}` }).check();
    await page.getByRole('checkbox', { name: `Select ${b}` }).check();
    await page.getByRole('region', { name: 'Selection actions' }).getByRole('button', { name: 'Move to service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move 2 keys' });
    await dialog.getByRole('combobox', { name: 'To service' }).selectOption({ label: name });
    await dialog.getByRole('button', { name: 'Move' }).click();
    await expect
      .poll(async () =>
        (await ctx.db.selectFrom('generatedKeys').select('serviceId').where('key', 'in', [a!, b!]).execute()).map((r) => r.serviceId),
      )
      .toEqual([to.id, to.id]);
    await page.getByText('2 keys moved').waitFor();
    await page.context().close();
  }, 60_000);
});
