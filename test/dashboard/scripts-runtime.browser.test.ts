import { describe, expect, it } from 'vitest';
import { call, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * The scripts page's run-time controls (contract §13.2, §13.3) in the real server process and Debian Chromium:
 * a version restored with a confirm, the kill switch with its message, the variables editor, and the webhook relay's
 * section (off until the webhook is on, then its address and snippet).
 */
const d = useDashboard();
const WAIT = { timeout: 20_000 };

describe('scripts at run time in a real browser', () => {
  it('restores an older version after a confirm, and switches a script off with a message and on again', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const uploaded = await call(app, 'POST', '/api/v1/vss/api/scripts', {
      key: s.serviceKey,
      body: { name: 'game', code: 'print("good")' },
    });
    expect(uploaded.status).toBe(201);
    const id = uploaded.body.data.id as string;
    expect(
      (await call(app, 'PUT', `/api/v1/vss/api/scripts/${id}`, { key: s.serviceKey, body: { code: 'print("broken!")' } })).status,
    ).toBe(200);
    const current = async () =>
      Number((await ctx.db.selectFrom('scripts').select('currentVersion').where('id', '=', id).executeTakeFirstOrThrow()).currentVersion);

    const page = await d.signedInPage(s.account, `/services/${s.id}/scripts`);
    const table = page.getByRole('table', { name: 'Scripts' });
    await table.getByRole('button', { name: 'Versions: game' }).click();
    const dialog = page.getByRole('dialog', { name: 'Versions of game' });
    const versions = dialog.getByRole('table', { name: 'Versions' });
    await versions.getByRole('row').nth(2).waitFor();
    // Newest first, with the size of each version; the live one has no Restore button.
    const newest = await versions.getByRole('row').nth(1).innerText();
    expect(newest).toMatch(/^2\s+16 B\s/);
    expect(newest.toLowerCase()).toContain('live');
    expect(await versions.getByRole('row').nth(2).innerText()).toMatch(/^1\s+13 B\s/);
    expect(await versions.getByRole('button', { name: 'Restore version 2' }).count()).toBe(0);

    // Cancel changes nothing; Confirm restores.
    await versions.getByRole('button', { name: 'Restore version 1' }).click();
    const confirm = page.getByRole('dialog', { name: 'Restore version' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await current()).toBe(2);
    await versions.getByRole('button', { name: 'Restore version 1' }).click();
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(current, WAIT).toBe(1);
    await expect.poll(() => versions.getByRole('button', { name: 'Restore version 2' }).count(), WAIT).toBe(1);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // The switch: off asks for the message and refuses one over 200 characters in the form.
    await table.getByRole('switch', { name: 'Enabled: game' }).dispatchEvent('click');
    const off = page.getByRole('dialog', { name: 'Switch off game' });
    const message = off.getByRole('textbox', { name: 'Message for buyers' });
    await message.fill('x'.repeat(201));
    await off.getByText('The message may be at most 200 characters; it has 201. Shorten it.').waitFor();
    expect(await off.getByRole('button', { name: 'Switch off' }).isDisabled()).toBe(true);
    await message.fill('Back at 18:00 UTC');
    await off.getByRole('button', { name: 'Switch off' }).click();
    const row = () => ctx.db.selectFrom('scripts').select(['enabled', 'disabledMessage']).where('id', '=', id).executeTakeFirstOrThrow();
    await expect.poll(async () => (await row()).enabled, WAIT).toBe(0);
    expect((await row()).disabledMessage).toBe('Back at 18:00 UTC');
    await table.getByText('Back at 18:00 UTC').waitFor();
    expect(await table.getByRole('switch', { name: 'Enabled: game' }).isChecked()).toBe(false);

    await table.getByRole('switch', { name: 'Enabled: game' }).dispatchEvent('click');
    await expect.poll(async () => (await row()).enabled, WAIT).toBe(1);
    await page.context().close();
  }, 90_000);

  it('edits the variables, refusing a bad name with a sentence before sending anything', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/scripts`);
    await page.getByRole('link', { name: 'Variables' }).click();
    let puts = 0;
    page.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().endsWith('/api/v1/keys/api/variables')) puts++;
    });
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByRole('textbox', { name: 'Variable name 1' }).fill('1motd');
    await page.getByRole('textbox', { name: 'Variable value 1' }).fill('hello buyers');
    await page.getByText('“1motd” is not a valid name').waitFor();
    await page.getByRole('button', { name: 'Save variables' }).click();
    expect(puts).toBe(0);
    await page.getByRole('textbox', { name: 'Variable name 1' }).fill('motd');
    await page.getByRole('button', { name: 'Save variables' }).click();
    const stored = async () => (await call(app, 'GET', '/api/v1/keys/api/variables', { key: s.serviceKey })).body.data.variables;
    await expect.poll(stored, WAIT).toEqual({ motd: 'hello buyers' });
    expect(puts).toBe(1);
    await page.context().close();
  }, 90_000);
  it('says obfuscation and status in words, and shows the webhook relay as off until the webhook is turned on', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const uploaded = await call(app, 'POST', '/api/v1/vss/api/scripts', { key: s.serviceKey, body: { name: 'plain', code: 'print(1)' } });
    expect(uploaded.status).toBe(201);
    const page = await d.signedInPage(s.account, `/services/${s.id}/scripts`);
    const row = page.getByRole('table', { name: 'Scripts' }).getByRole('row', { name: /plain/ });
    await row.waitFor();
    // The DOM text: a badge is upper-cased by CSS, so innerText would hide what the page says.
    const cells = (await row.textContent()) ?? '';
    expect(cells).toContain('None');
    expect(cells).toContain('Ready');
    expect(cells).not.toContain('NONE');

    const relay = page.getByRole('region', { name: 'Webhook relay' });
    await relay.getByText('Off', { exact: true }).waitFor();
    expect(await relay.getByRole('link', { name: 'the webhook set-up' }).getAttribute('href')).toBe(`/services/${s.id}/settings`);
    expect(await relay.innerText()).toContain('at most 10 messages a minute');

    const saved = await call(app, 'PUT', '/api/v1/keys/api/settings', {
      key: s.serviceKey,
      body: { webhookUrl: 'https://discord.com/api/webhooks/223456789012345678/secret-token_9', webhookEnabled: true },
    });
    expect(saved.status).toBe(200);
    await page.reload();
    await relay.getByText('On', { exact: true }).waitFor();
    const address = d.url(`/api/v1/public/relay/${s.identifier}`);
    expect(await relay.getByLabel('Relay address').innerText()).toBe(address);
    const snippetBox = relay.getByLabel('Webhook relay snippet');
    // It names the service's script once the scripts list has loaded, which may be after the relay shows On (a
    // placeholder until then): a fresh-clone CI run read the placeholder.
    await expect.poll(() => snippetBox.innerText(), WAIT).toContain(`api.script_id = "${uploaded.body.data.id as string}"`);
    const snippet = await snippetBox.innerText();
    expect(snippet).toContain('api.send_webhook(');
    await relay.getByRole('button', { name: 'Copy relay snippet' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), WAIT).toBe(snippet);
    await page.context().close();
  }, 90_000);
});
