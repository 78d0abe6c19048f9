import { describe, expect, it } from 'vitest';
import { call, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/** The Signed answers section of the settings page (contract §13.1), in Debian's Chromium. */
const d = useDashboard();

describe('the Signed answers section', () => {
  it('shows the public key the route answers, and Rotate (after Confirm) replaces it on the server and on the page', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const publicKey = async () => (await call(app, 'GET', `/api/v1/public/services/${s.id}/signing-key`)).body.data.publicKey as string;
    const before = await publicKey();
    const page = await d.signedInPage(s.account, `/services/${s.id}/settings`);
    const section = page.getByRole('region', { name: 'Signed answers' });
    await section.getByText(before, { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Copy public key' }).waitFor();

    // Cancel leaves the key alone.
    await section.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('dialog', { name: 'Rotate signing key' }).getByRole('button', { name: 'Cancel' }).click();
    expect(await publicKey()).toBe(before);

    await section.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('dialog', { name: 'Rotate signing key' }).getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(publicKey).not.toBe(before);
    await section.getByText(await publicKey(), { exact: true }).waitFor();
    expect(await section.getByText(before, { exact: true }).count()).toBe(0);
    const audit = await ctx.db
      .selectFrom('auditLog')
      .select('actorKind')
      .where('serviceId', '=', s.id)
      .where('action', '=', 'signingKey.rotate')
      .execute();
    expect(audit).toEqual([{ actorKind: 'session' }]);
  });
});
