import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * The seller tools the first dashboard pass left out (issue 10): the blacklist's HWID check, script failure reasons and
 * the 40 MB rule, the analytics interval and custom range, short links, the vault, the outbox's error state and the
 * staff role rule for moderators. One app and one Debian Chromium for the file.
 */
const d = useDashboard();

/** Polls a page read for as long as a locator waits (vitest's own default is 1 s, too short on a busy machine). */
const WAIT = { timeout: 20_000 };

describe('dashboard seller tools in a real browser', () => {
  it('checks an HWID against the blacklist, shows why obfuscation failed, refuses a 40 MB+ file before sending it, and keeps "Copy loadstring" named after a click', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    expect(
      (await call(app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'bad-pc', reason: 'chargeback' } })).status,
    ).toBe(201);
    const page = await d.signedInPage(s.account, `/services/${s.id}/blacklist`);

    const check = page.getByRole('region', { name: 'Check an HWID' });
    await check.getByRole('textbox', { name: 'HWID to check' }).fill('bad-pc');
    await check.getByRole('button', { name: 'Check', exact: true }).click();
    await expect.poll(() => check.getByRole('status', { name: 'Check result' }).innerText(), WAIT).toContain('bad-pc is blacklisted');
    expect(await check.getByRole('status', { name: 'Check result' }).innerText()).toContain('Reason: chargeback');
    await check.getByRole('textbox', { name: 'HWID to check' }).fill('good-pc');
    await check.getByRole('button', { name: 'Check', exact: true }).click();
    await expect.poll(() => check.getByRole('status', { name: 'Check result' }).innerText(), WAIT).toContain('good-pc is not blacklisted');

    // A script whose obfuscation failed shows the reason the API gives.
    const uploaded = await call(app, 'POST', '/api/v1/vss/api/scripts', {
      key: s.serviceKey,
      body: { name: 'broken', code: 'print(1)', obfuscationType: 'NONE' },
    });
    expect(uploaded.status).toBe(201);
    await ctx.db
      .updateTable('scripts')
      .set({ status: 'failed', failureReason: 'the obfuscator exited with code 3: syntax error near line 1' })
      .where('id', '=', uploaded.body.data.id)
      .execute();
    await page.getByRole('link', { name: 'Scripts' }).click();
    const table = page.getByRole('table', { name: 'Scripts' });
    await expect
      .poll(() => table.getByLabel('Failure reason: broken').innerText(), WAIT)
      .toContain('the obfuscator exited with code 3: syntax error near line 1');

    // "Copy loadstring" copies and keeps its name (contract §9); "Copied" is a tooltip.
    await table.getByRole('button', { name: 'Copy loadstring' }).click();
    // Contract §15: the buyer-ready snippet, the script_key line above the loadstring.
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`script_key = "KEY_HERE"\n${uploaded.body.data.loadstring}`);
    await page.getByRole('tooltip', { name: 'Copied' }).waitFor();
    expect(await table.getByRole('button', { name: 'Copy loadstring' }).count()).toBe(1);

    // A file over 40 MB is refused in the page: the message names the rule and nothing is uploaded.
    let uploads = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/v1/vss/api/scripts')) uploads++;
    });
    await page.getByRole('button', { name: 'Upload script' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload script' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('huge');
    // A local file by path: the browser reads it from disk (a 40 MB buffer through the protocol is slow).
    const huge = path.join(mkdtempSync(path.join(tmpdir(), 'keyward-huge-')), 'huge.lua');
    writeFileSync(huge, '');
    truncateSync(huge, 41_943_041);
    await dialog.locator('input[type="file"]').setInputFiles(huge);
    await dialog.getByText('scripts may be at most 40 MB (41,943,040 bytes)').waitFor();
    expect(await dialog.getByRole('button', { name: 'Upload' }).isDisabled()).toBe(true);
    expect(uploads).toBe(0);
    rmSync(path.dirname(huge), { recursive: true, force: true });
    expect(await ctx.db.selectFrom('scripts').select('name').where('serviceId', '=', s.id).execute()).toEqual([{ name: 'broken' }]);
    await page.context().close();
  }, 90_000);

  it('draws analytics by hour or day over a custom range, and refuses a range too long for hours', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/analytics`);
    await page.getByRole('figure', { name: 'Executions and validations over time' }).locator('svg.recharts-surface').first().waitFor();

    const byHour = page.waitForRequest(
      (r) => r.url().includes('/keys/api/analytics') && new URL(r.url()).searchParams.get('interval') === 'hour',
    );
    await page.getByRole('radiogroup', { name: 'Interval' }).getByText('Hour', { exact: true }).click();
    await byHour;

    await page.getByRole('radiogroup', { name: 'Range' }).getByText('Custom', { exact: true }).click();
    const custom = page.getByRole('region', { name: 'Custom range' });
    await custom.getByLabel('From').fill('2026-03-01T00:00');
    await custom.getByLabel('To').fill('2026-03-03T12:00');
    // The executor breakdown asks /keys/api/analytics/executors for the same range: only the chart's own request counts.
    const customRequest = page.waitForRequest(
      (r) => new URL(r.url()).pathname.endsWith('/keys/api/analytics') && r.url().includes('from=2026-0'),
    );
    await custom.getByRole('button', { name: 'Show range' }).click();
    const asked = new URL((await customRequest).url()).searchParams;
    // The inputs are in the browser's time zone; the request carries the same instants in UTC.
    const localMs = (value: string) => page.evaluate((v) => new Date(v).getTime(), value);
    expect({ from: Date.parse(asked.get('from')!), to: Date.parse(asked.get('to')!), interval: asked.get('interval') }).toEqual({
      from: await localMs('2026-03-01T00:00'),
      to: await localMs('2026-03-03T12:00'),
      interval: 'hour',
    });
    await page.getByRole('figure', { name: 'Executions and validations over time' }).locator('svg.recharts-surface').first().waitFor();

    // 90 days of hours is over the server's 1,000 buckets: said in the page, not sent.
    await custom.getByLabel('From').fill('2026-01-01T00:00');
    await custom.getByLabel('To').fill('2026-04-01T00:00');
    await expect.poll(() => custom.getByRole('alert').innerText(), WAIT).toContain('at most 1,000 fit in one chart');
    expect(await custom.getByRole('button', { name: 'Show range' }).isDisabled()).toBe(true);
    const byDay = page.waitForRequest(
      (r) => r.url().includes('/keys/api/analytics') && new URL(r.url()).searchParams.get('interval') === 'day',
    );
    await page.getByRole('radiogroup', { name: 'Interval' }).getByText('Day', { exact: true }).click();
    await byDay;
    await page.context().close();
  }, 60_000);

  it('says the URL shortener is off until allowed, then creates, lists, copies and deletes (confirmed) a short link', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    await ctx.db.updateTable('services').set({ allowUrlShortener: 0 }).where('id', '=', s.id).execute();
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`);
    await page.getByRole('link', { name: 'Short links' }).click();
    await page.getByText('The URL shortener is off for this service').waitFor();
    await page.getByRole('button', { name: 'Turn on the URL shortener' }).click();
    await expect
      .poll(
        async () =>
          Number(
            (await ctx.db.selectFrom('services').select('allowUrlShortener').where('id', '=', s.id).executeTakeFirstOrThrow())
              .allowUrlShortener,
          ),
        WAIT,
      )
      .toBe(1);

    const form = page.getByRole('region', { name: 'New short link' });
    await form.getByRole('textbox', { name: 'Address to shorten' }).fill('ftp://example.com/file');
    await form.getByText('Only http:// and https:// addresses can be shortened').waitFor();
    await form.getByRole('textbox', { name: 'Address to shorten' }).fill('https://example.com/get-key');
    await form.getByRole('textbox', { name: 'Short name' }).fill('get-key');
    await form.getByRole('button', { name: 'Shorten' }).click();
    const table = page.getByRole('table', { name: 'Short links' });
    await table.getByRole('cell', { name: `${ctx.config.baseUrl}/go/get-key`, exact: true }).waitFor();
    const listed = await call(app, 'GET', '/api/v1/public/shortener/links', { key: s.serviceKey });
    expect(listed.body.data.items).toMatchObject([{ slug: 'get-key', url: 'https://example.com/get-key', clicks: 0 }]);

    // A taken slug is said in words.
    await form.getByRole('textbox', { name: 'Address to shorten' }).fill('https://example.com/other');
    await form.getByRole('textbox', { name: 'Short name' }).fill('get-key');
    await form.getByRole('button', { name: 'Shorten' }).click();
    await form.getByText('The slug “get-key” is taken: choose another.').waitFor();

    await table.getByRole('button', { name: 'Copy get-key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${ctx.config.baseUrl}/go/get-key`);
    await table.getByRole('button', { name: 'Delete get-key' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('No short links yet').waitFor();
    expect((await call(app, 'GET', '/api/v1/public/shortener/links', { key: s.serviceKey })).body.data.items).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('stores, pages through, views, edits and deletes vault scripts from the account page', async () => {
    const { ctx, app } = d.app();
    const account = await seedAccount(ctx);
    const token = (await call(app, 'POST', '/api/v1/vault-v3/session/token', { key: account.accountKey })).body.data.token as string;
    const vault = (method: 'GET' | 'POST', url: string, body?: unknown) =>
      call(app, method, `/api/v3/vault${url}`, { headers: { authorization: `Bearer ${token}` }, body });
    for (let i = 0; i < 20; i++)
      expect((await vault('POST', '/scripts', { name: `seed-${String(i).padStart(2, '0')}`, code: 'x' })).status).toBe(201);

    const page = await d.signedInPage(account, '/account');
    const section = page.getByRole('region', { name: 'Vault scripts' });
    await section.getByRole('button', { name: 'Show vault scripts' }).click();
    const table = section.getByRole('table', { name: 'Vault scripts' });
    await expect.poll(() => table.getByRole('row').count(), WAIT).toBe(21);

    await section.getByRole('button', { name: 'New vault script' }).click();
    const create = page.getByRole('dialog', { name: 'New vault script' });
    await create.getByRole('textbox', { name: 'Name' }).fill('my-lib.lua');
    await create.getByRole('textbox', { name: 'Code' }).fill('return { version = 1 }');
    await create.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Vault script “my-lib.lua” stored').waitFor();
    // 21 scripts: a second page.
    await section.getByRole('button', { name: '2', exact: true }).click();
    await expect.poll(() => table.getByRole('row').count(), WAIT).toBe(2);

    await section.getByRole('searchbox', { name: 'Search vault' }).fill('my-lib');
    await table.getByRole('button', { name: 'View my-lib.lua' }).click();
    const view = page.getByRole('dialog', { name: 'my-lib.lua' });
    await expect.poll(() => view.getByLabel('Code of my-lib.lua').innerText(), WAIT).toBe('return { version = 1 }');
    await page.keyboard.press('Escape');

    await table.getByRole('button', { name: 'Edit my-lib.lua' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit my-lib.lua' });
    await expect.poll(() => edit.getByRole('textbox', { name: 'Code' }).inputValue(), WAIT).toBe('return { version = 1 }');
    await edit.getByRole('textbox', { name: 'Code' }).fill('return { version = 2 }');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Vault script “my-lib.lua” saved').waitFor();
    expect((await vault('GET', '/scripts/my-lib.lua')).body.data).toMatchObject({ name: 'my-lib.lua', code: 'return { version = 2 }' });

    await table.getByRole('button', { name: 'Delete my-lib.lua' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await section.getByText('No vault script matches').waitFor();
    expect((await vault('GET', '/scripts/my-lib.lua')).status).toBe(404);
    await page.context().close();
  }, 60_000);

  it('shows an error with a retry when the outbox cannot be read, and a moderator cannot change roles', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    const page = await d.newPage();
    let failOutbox = true;
    await page.route('**/api/v1/keys/api/webhook/outbox*', (route) =>
      failOutbox
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ success: false, error: 'The database is unavailable', code: 'UNAVAILABLE' }),
          })
        : route.continue(),
    );
    await d.signIn(page, s.account, `/services/${s.id}/settings`);
    const webhook = page.getByRole('region', { name: 'Webhook' });
    await expect.poll(() => webhook.getByRole('alert').innerText(), WAIT).toContain('The database is unavailable');
    failOutbox = false;
    await webhook.getByRole('button', { name: 'Try again' }).click();
    await webhook.getByText('Nothing waiting: every message was delivered.').waitFor();
    await page.context().close();

    const moderator = await seedAccount(ctx, 'moderator');
    const user = await seedAccount(ctx);
    const staff = await d.signedInPage(moderator, '/staff');
    await staff.getByRole('searchbox', { name: 'Search accounts' }).fill(user.username);
    const row = staff.getByRole('table', { name: 'Accounts' }).getByRole('row').filter({ hasText: user.username });
    await row.getByRole('button', { name: 'Disable' }).waitFor();
    expect(await row.getByRole('combobox', { name: `Role of ${user.username}` }).isDisabled()).toBe(true);
    await staff.context().close();
  }, 60_000);
});
