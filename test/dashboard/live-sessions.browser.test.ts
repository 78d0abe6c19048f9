import { describe, expect, it } from 'vitest';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/** Contract §21 "Live now" in Chromium: live sessions on the overview, a key's sessions with End session, maxSessions. */
const d = useDashboard();

describe('live now', () => {
  it('shows live sessions on the overview, lists a key’s sessions in its drawer and ends one, and saves Devices at once', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const [key] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', maxSessions: 2 });
    const opened = await call(app, 'POST', `/api/v1/public/sessions/${s.id}`, { body: { key, hwid: 'pc-live' } });
    expect(opened.status).toBe(201);
    const sessionId = opened.body.data.sessionId as string;

    const page = await d.signedInPage(s.account, `/services/${s.id}/overview`);
    await expect.poll(() => page.getByRole('region', { name: 'Live now' }).innerText()).toMatch(/\n1\n/);

    await page.goto(`${new URL(page.url()).origin}/services/${s.id}/keys`);
    await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: key!, exact: true }).click();
    const drawer = page.getByRole('dialog', { name: `Key ${key}` });
    const sessions = drawer.getByRole('table', { name: 'Live sessions of this key' });
    await sessions.getByRole('cell', { name: 'pc-live', exact: true }).waitFor();
    await sessions.getByRole('button', { name: 'End session' }).click();
    await drawer.getByText('This key is not running anywhere right now.').waitFor();
    const beat = await call(app, 'POST', `/api/v1/public/sessions/${s.id}/${sessionId}/heartbeat`);
    expect(beat.body).toMatchObject({ code: 'SESSION_ENDED', reason: 'KILLED' });

    await drawer.getByRole('textbox', { name: 'Devices at once' }).fill('1');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(
        async () =>
          (await ctx.db.selectFrom('activeKeys').select('maxSessions').where('key', '=', key!).executeTakeFirstOrThrow()).maxSessions,
      )
      .toBe(1);
    await page.context().close();
  }, 90_000);

  it('saves how often scripts check in from Settings, and Devices at once on a product', async () => {
    const { ctx } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/settings`);
    const heartbeat = page.getByRole('textbox', { name: 'Heartbeat every (seconds)' });
    await heartbeat.fill('5');
    await page.getByRole('button', { name: 'Save heartbeat' }).click();
    await page
      .getByText(/from 10 to 300/)
      .first()
      .waitFor();
    await heartbeat.fill('45');
    await page.getByRole('button', { name: 'Save heartbeat' }).click();
    await expect
      .poll(async () =>
        Number(
          (await ctx.db.selectFrom('services').select('sessionHeartbeatSeconds').where('id', '=', s.id).executeTakeFirstOrThrow())
            .sessionHeartbeatSeconds,
        ),
      )
      .toBe(45);

    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('button', { name: 'New product' }).click();
    const dialog = page.getByRole('dialog', { name: 'New product' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Two PCs');
    await dialog.getByRole('textbox', { name: 'Devices at once' }).fill('2');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('article', { name: 'Two PCs' }).waitFor();
    const product = await ctx.db.selectFrom('products').select('maxSessions').where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(product.maxSessions).toBe(2);
    await page.context().close();
  }, 90_000);
});
