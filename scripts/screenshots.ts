/**
 * `npm run screenshots`: every dashboard page at 1280 px and 375 px, light and dark, into screenshots/
 * (gitignored), from a throwaway SQLite app seeded with one account, a service, keys, a script and
 * some activity. `npm run screenshots -- --measure` also prints what the README reports: JS shipped
 * (gzip) for the keys page and its time to interactive with 10,000 keys, in Debian's Chromium.
 *
 * Needs `npm run build:web` first (the app serves web/dist).
 */
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { startTestApp } from '../test/helpers/app.ts';
import { call, generateKeys, seedService } from '../test/helpers/seed.ts';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const OUT = new URL('../screenshots/', import.meta.url);
const measure = process.argv.includes('--measure');

const t = await startTestApp({ CAPTCHA_MAX_NUMBER: '200', REGISTRATION: 'open' });
const { app, ctx } = t;
const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
const s = await seedService(ctx);
const total = measure ? 10_000 : 60;
for (let made = 0; made < total; made += 1000) {
  await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 30, count: Math.min(1000, total - made), note: 'seeded' });
}
const [first] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', note: 'bound' });
await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${first}&hwid=pc-1`);
await call(app, 'POST', '/api/v1/vss/api/scripts', { key: s.serviceKey, body: { name: 'main.lua', code: 'print("hi")' } });
await call(app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'cheater', reason: 'chargeback' } });

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});

async function signIn(page: Page) {
  await page.goto(`${baseUrl}/login`);
  await page.getByRole('textbox', { name: 'Username' }).fill(s.account.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(s.account.password);
  await page.locator('altcha-widget input[type="checkbox"]').click();
  await page.locator('altcha-widget [data-state="verified"]').waitFor();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'New service' }).waitFor();
}

const PAGES = ['keys', 'keyless', 'blacklist', 'scripts', 'key-system', 'analytics', 'audit-log', 'settings', 'api-access'].map((slug) => ({
  name: slug,
  path: `/services/${s.id}/${slug}`,
}));
PAGES.unshift({ name: 'services', path: '/services' });
PAGES.push({ name: 'account', path: '/account' });

try {
  await mkdir(OUT, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      const context = await browser.newContext({ viewport: { width, height: width === 375 ? 812 : 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await signIn(page);
      for (const { name, path } of PAGES) {
        await page.goto(`${baseUrl}${path}`);
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: new URL(`${name}-${width}-${scheme}.png`, OUT).pathname, fullPage: true });
      }
      await context.close();
    }
  }
  console.log(`screenshots written to ${OUT.pathname}`);

  if (measure) {
    // JS shipped: every script the keys page loads, gzip-compressed as a server would send it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page);
    const scripts = new Set<string>();
    page.on('response', (r) => r.url().endsWith('.js') && scripts.add(new URL(r.url()).pathname));
    const started = Date.now();
    await page.goto(`${baseUrl}/services/${s.id}/keys`);
    await page.getByRole('table', { name: 'Keys' }).getByRole('row').nth(20).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).waitFor({ state: 'visible' });
    const interactive = Date.now() - started;
    let gzip = 0;
    const dist = new URL('../web/dist/', import.meta.url);
    for (const path of scripts) gzip += gzipSync(await readFile(new URL(`.${path}`, dist))).length;
    const all = (await readdir(new URL('assets/', dist))).filter((f) => f.endsWith('.js'));
    console.log(
      `keys page with ${total + 1} keys: time to interactive ${interactive} ms; JS loaded ${scripts.size} files, ${(gzip / 1024).toFixed(0)} KB gzip (of ${all.length} chunks built)`,
    );
    await context.close();
  }
} finally {
  await browser.close();
  await app.close();
  await t.database.drop();
}
