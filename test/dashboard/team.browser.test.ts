import { describe, expect, it } from 'vitest';
import { call, generateKeys, seedAccount, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

// Contract §21's Team part in Debian's Chromium: the owner invites a reseller with a quota and copies the link, the
// invitee accepts it at /invite/<code>, the owner sees the member with its quota; a reseller's dashboard shows only
// what its role allows, "Generate keys" with "N keys left", and only its own keys.
const d = useDashboard();
const WAIT = { timeout: 20_000 };

describe('the Team page and a reseller’s view', () => {
  it('invites a reseller with a quota, the invitee accepts the link, and the members table shows it', async () => {
    const { ctx, db } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`);
    await page.getByRole('link', { name: 'Team' }).click();
    const invite = page.getByRole('region', { name: 'Invite someone' });
    await invite.getByRole('combobox', { name: 'Role' }).selectOption('reseller');
    await invite.getByRole('textbox', { name: 'Keys it may generate' }).fill('5');
    await invite.getByRole('textbox', { name: 'Longest key, in days' }).fill('30');
    await invite.getByRole('button', { name: 'Create invite link' }).click();
    const link = await invite.getByLabel('Invite link', { exact: true }).innerText(WAIT);
    expect(link).toMatch(new RegExp(`^${d.app().config.baseUrl}/invite/[A-Za-z0-9]{32}$`));
    await invite.getByRole('button', { name: 'Copy the invite link' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    const stored = await db.selectFrom('serviceInvites').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ role: 'reseller', keysLeft: 5, maxDays: 30, allowLifetime: 0 });

    // The invitee opens the link: signing in comes back to it, accepting opens the service on what a reseller may use.
    const invitee = await seedAccount(ctx);
    const other = await d.signedInPage(invitee, new URL(link).pathname);
    await other.getByRole('button', { name: 'Accept the invite' }).click();
    await other.waitForURL((url) => url.pathname === `/services/${s.id}/keys`, WAIT);
    await other.getByText('5 keys left').waitFor(WAIT);

    await page.reload();
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('cell', { name: invitee.username, exact: true }).waitFor(WAIT);
    expect(await members.getByLabel(`Keys left for ${invitee.username}`).innerText()).toMatch(
      /^5 keys left, keys up to 30 days, no lifetime keys/,
    );

    // Remove: the member's next request is refused.
    await members.getByRole('button', { name: `Remove ${invitee.username}` }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /Remove|Confirm|Delete/ })
      .click();
    await expect.poll(() => db.selectFrom('serviceMembers').select('accountId').where('serviceId', '=', s.id).execute(), WAIT).toEqual([]);
    expect(
      (await call(d.app().app, 'GET', '/api/v1/keys/api/keys', { key: invitee.accountKey, headers: { 'x-service-id': s.id } })).status,
    ).toBe(404);
  });

  it('a reseller sees its role in the services list, only the sections it may use, its quota and only its own keys', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const reseller = await seedAccount(ctx);
    const code = (
      await call(app, 'POST', `/api/v1/services/${s.id}/invites`, {
        key: s.account.accountKey,
        body: { role: 'reseller', quota: { keysLeft: 10, allowLifetime: true } },
      })
    ).body.data.code;
    expect((await call(app, 'POST', `/api/v1/invites/${code}/accept`, { key: reseller.accountKey })).status).toBe(200);
    const [ownerKey] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime' });
    const mine = await call(app, 'POST', '/api/v1/keys/api/generate', {
      key: reseller.accountKey,
      headers: { 'x-service-id': s.id },
      body: { expirationType: 'lifetime', count: 3 },
    });
    expect(mine.status).toBe(201);

    const page = await d.signedInPage(reseller, '/services');
    const row = page.getByRole('row', { name: new RegExp(s.identifier) });
    await row.getByText('Reseller').waitFor(WAIT);
    await row.getByRole('link').click();
    await page.waitForURL((url) => url.pathname === `/services/${s.id}/keys`, WAIT);
    const nav = page.getByRole('navigation', { name: 'Service sections' });
    await nav.getByRole('link', { name: 'Keys' }).waitFor(WAIT);
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Keys']);
    await page.getByText('7 keys left').waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Generate keys' }).count()).toBe(1);
    for (const hidden of ['Export', 'Import', 'Compensate']) expect(await page.getByRole('button', { name: hidden }).count()).toBe(0);
    for (const k of mine.body.data.keys as Array<{ key: string }>) await page.getByText(k.key).first().waitFor(WAIT);
    expect(await page.getByText(ownerKey!).count()).toBe(0);
  });

  it('support staff see the sections support may use, support row actions only, and edit a key’s note and status', async () => {
    const { ctx, app, db } = d.app();
    const s = await seedService(ctx);
    const support = await seedAccount(ctx);
    const code = (await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body: { role: 'support' } }))
      .body.data.code;
    expect((await call(app, 'POST', `/api/v1/invites/${code}/accept`, { key: support.accountKey })).status).toBe(200);
    const [key] = await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 5 });

    const page = await d.signedInPage(support, `/services/${s.id}`);
    await page.waitForURL((url) => url.pathname === `/services/${s.id}/keys`, WAIT);
    const nav = page.getByRole('navigation', { name: 'Service sections' });
    await nav.getByRole('link', { name: 'Keys' }).waitFor(WAIT);
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Keys', 'Keyless', 'Blacklist', 'Analytics', 'Audit log']);
    expect(await page.getByRole('button', { name: 'Generate keys' }).count()).toBe(0);
    const table = page.getByRole('table', { name: 'Keys' });
    const row = table.getByRole('row').filter({ hasText: key! });
    await row.getByRole('button', { name: 'Ban' }).waitFor(WAIT);
    for (const hidden of ['Extend', 'Delete']) expect(await row.getByRole('button', { name: hidden }).count()).toBe(0);

    await table.getByRole('button', { name: key!, exact: true }).click();
    const drawer = page.getByRole('dialog', { name: `Key ${key}` });
    await drawer.getByRole('textbox', { name: 'Note' }).fill('buyer asked on Discord');
    await drawer.getByRole('combobox', { name: 'Status' }).selectOption('paused');
    expect(await drawer.getByLabel('Lifetime').count()).toBe(0); // the key's terms are not support's
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => db.selectFrom('generatedKeys').select(['note', 'status']).where('key', '=', key!).executeTakeFirst(), WAIT)
      .toEqual({ note: 'buyer asked on Discord', status: 'paused' });

    // Bulk actions are not support's (contract §23: the server answers 403), so the selection bar is not shown.
    expect(await page.getByRole('region', { name: 'Selection actions' }).count()).toBe(0);
  });
});
