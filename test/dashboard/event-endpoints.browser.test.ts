import { createServer } from 'node:net';
import { once } from 'node:events';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

// Contract §12.4 in a real browser: an endpoint is added from the Event endpoints page, its secret shows once (with a
// copy button) and never again, the list shows the endpoint, and deleting it goes through the confirm dialog.
// The page's changes carry its Origin, which must be BASE_URL's (contract §14): the server gets a port chosen here and
// BASE_URL at that address, read when useDashboard's own beforeAll starts it (registered after this one).
let port = 0;
beforeAll(async () => {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  port = (probe.address() as { port: number }).port;
  probe.close();
  await once(probe, 'close');
});
const d = useDashboard(() => ({ PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, WEBHOOK_WORKER_INTERVAL_MS: '0' }));
const WAIT = { timeout: 20_000 };

describe('the Event endpoints page', () => {
  it('adds an endpoint, shows its secret once, lists it and deletes it', async () => {
    const { ctx, db } = d.app();
    const s = await seedService(ctx);
    const page = await d.signedInPage(s.account, `/services/${s.id}/keys`);
    await page.getByRole('link', { name: 'Event endpoints' }).click();

    const add = page.getByRole('region', { name: 'Add an endpoint' });
    await add.getByRole('textbox', { name: 'Endpoint URL' }).fill('http://example.com/hook');
    await add.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => add.getByText('The address must start with https://.').count(), WAIT).toBe(1);
    expect(await db.selectFrom('eventEndpoints').select('id').where('serviceId', '=', s.id).execute()).toEqual([]);

    await add.getByRole('textbox', { name: 'Endpoint URL' }).fill('https://example.com/hook');
    await add.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Signing secret' });
    await dialog.waitFor(WAIT);
    const secret = (await dialog.getByLabel('Signing secret').innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = await db
      .selectFrom('eventEndpoints')
      .select(['url', 'secretSealed'])
      .where('serviceId', '=', s.id)
      .executeTakeFirstOrThrow();
    expect(stored.url).toBe('https://example.com/hook');
    expect(ctx.sealer.open(stored.secretSealed)).toBe(secret);
    await dialog.getByRole('button', { name: 'Copy secret' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await dialog.getByRole('button', { name: 'Done' }).click();

    const endpoint = page.getByRole('article', { name: 'https://example.com/hook' });
    await endpoint.waitFor(WAIT);
    expect(await endpoint.innerText()).toContain('All events');
    await page.reload();
    await endpoint.waitFor(WAIT);
    expect(await page.content()).not.toContain(secret.slice(6));

    await endpoint.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete endpoint' }).getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => db.selectFrom('eventEndpoints').select('id').where('serviceId', '=', s.id).execute(), WAIT).toEqual([]);
  });
});
