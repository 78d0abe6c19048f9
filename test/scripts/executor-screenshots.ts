/**
 * `npx tsx test/scripts/executor-screenshots.ts` (after `npm run build:web`): the executor rule editor (contract §29) in
 * the script's Edit dialog and the Analytics page's executor breakdown, at 1280 and 375 px, into screenshots/
 * (gitignored), from a throwaway SQLite app with runs from a few executors.
 */
import { mkdir } from 'node:fs/promises';
import { startTestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/browser.ts';
import { freePort } from '../helpers/free-port.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';

const OUT = new URL('../../screenshots/', import.meta.url);
await mkdir(OUT, { recursive: true });
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const t = await startTestApp({ CAPTCHA_MAX_NUMBER: '200', BASE_URL: baseUrl });
await t.app.listen({ host: '127.0.0.1', port });
const s = await seedService(t.ctx);
const created = await call(t.app, 'POST', '/api/v1/vss/api/scripts', {
  key: s.serviceKey,
  body: { name: 'main.lua', code: 'print("hi")', executors: { deny: ['Xeno', 'Solara'] } },
});
const scriptId = created.body.data.id as string;
const keys = await generateKeys(t.app, s.serviceKey, { expirationType: 'lifetime', count: 6 });
const fetch = (key: string, hwid: string, executor: string) =>
  t.app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${scriptId}?${new URLSearchParams({ key, hwid, executor })}` });
for (let i = 0; i < 40; i++) await fetch(keys[i % 3]!, `pc-${i % 3}`, 'Wave 2.1.0');
for (let i = 0; i < 14; i++) await fetch(keys[3]!, 'pc-3', 'Synapse Z 1.4');
for (let i = 0; i < 9; i++) await fetch(keys[4]!, 'pc-4', 'Xeno 1.0.4');
for (let i = 0; i < 4; i++) await fetch(keys[5]!, `other-pc-${i}`, 'Delta');
await fetch('not-a-key', 'pc-9', 'Delta');
await t.app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${scriptId}?key=nope&hwid=pc-10` });
await t.ctx.analytics.flush(t.ctx.db);

const browser = await launchChromium();
for (const width of [1280, 375]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${baseUrl}/login`);
  await page.getByRole('textbox', { name: 'Username' }).fill(s.account.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(s.account.password);
  await page.locator('altcha-widget input[type="checkbox"]').click();
  await page.locator('altcha-widget [data-state="verified"]').waitFor();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'New service' }).waitFor();
  await page.goto(`${baseUrl}/services/${s.id}/scripts`);
  await page.getByRole('button', { name: 'Edit' }).first().click();
  await page.getByRole('dialog').getByText('Every executor except these').waitFor();
  // The modal's opening transition, finished.
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
  await page.screenshot({ path: new URL(`executor-rules-${width}.png`, OUT).pathname, fullPage: true });
  await page.goto(`${baseUrl}/services/${s.id}/analytics`);
  await page.getByTestId('executor-summary').waitFor();
  await page.waitForLoadState('networkidle');
  await page.getByRole('region', { name: 'Executors' }).screenshot({ path: new URL(`executors-${width}.png`, OUT).pathname });
  await page.close();
}
await browser.close();
await t.app.close();
await t.database.drop();
process.stdout.write(`written to ${OUT.pathname}\n`);
