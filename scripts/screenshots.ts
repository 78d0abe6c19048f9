/**
 * `npm run screenshots`: every dashboard page at 1280 px and 375 px, light and dark, into screenshots/
 * (gitignored), from a throwaway SQLite app seeded with a seller (a service, keys, a script, some activity) and an
 * admin for the staff page; the sign-in and registration pages are taken signed out. Each member role (manager,
 * support, reseller) is taken too, in light at both widths, on the sections its role shows (`member-<role>-*.png`). `npm run screenshots -- --measure`
 * also prints what the README reports, in Debian's Chromium: JS shipped (gzip) for the keys page, and with 10,000 keys
 * in the service the time from navigation until the keys table shows its rows and the search box takes input.
 *
 * The app's BASE_URL is the address the pictures are taken at, so no page shows the "BASE_URL is not this address"
 * banner by accident; `base-url-warning-*.png` shows that banner on purpose (the page told BASE_URL is
 * http://localhost:3000, the usual mistake on a server).
 *
 * Needs `npm run build:web` first (the app serves web/dist).
 */
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { startTestApp } from '../test/helpers/app.ts';
import { launchChromium } from '../test/helpers/browser.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { call, generateKeys, seedAccount, seedService, type SeededAccount } from '../test/helpers/seed.ts';
import { roleMay, type ServiceRole } from '../src/modules/services/roles.ts';

import { SECTIONS } from '../web/src/layout/sections.ts';

const OUT = new URL('../screenshots/', import.meta.url);
const measure = process.argv.includes('--measure');

const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const t = await startTestApp({ CAPTCHA_MAX_NUMBER: '200', REGISTRATION: 'open', BASE_URL: baseUrl });
const { app, ctx } = t;
await app.listen({ host: '127.0.0.1', port });
const s = await seedService(ctx);
const admin = await seedAccount(ctx, 'admin');
const total = measure ? 10_000 : 60;
for (let made = 0; made < total; made += 1000) {
  await generateKeys(app, s.serviceKey, { expirationType: 'byDays', days: 30, count: Math.min(1000, total - made), note: 'seeded' });
}
const [first] = await generateKeys(app, s.serviceKey, { expirationType: 'lifetime', note: 'bound' });
await call(app, 'GET', `/api/v1/keys/validate?service=${s.identifier}&key=${first}&hwid=pc-1`);
const script = await call(app, 'POST', '/api/v1/vss/api/scripts', { key: s.serviceKey, body: { name: 'main.lua', code: 'print("hi")' } });
await call(app, 'PUT', `/api/v1/vss/api/scripts/${script.body.data.id}`, { key: s.serviceKey, body: { code: 'print("hi again")' } });
const [fromRedemption] = await generateKeys(app, s.serviceKey, { expirationType: 'afterRedeem', days: 30, note: 'sold on Sellix' });
await call(app, 'PUT', '/api/v1/keys/api/variables', {
  key: s.serviceKey,
  body: { variables: { motd: 'Update 2 is live! Join the Discord for the changelog.', discord: 'https://discord.gg/example' } },
});
await call(app, 'POST', '/api/v1/keys/api/blacklist', { key: s.serviceKey, body: { hwid: 'cheater', reason: 'chargeback' } });

/** An account invited into the service with `role`, as a seller's staff joins (contract §17). */
async function member(role: Exclude<ServiceRole, 'owner'>): Promise<SeededAccount> {
  const account = await seedAccount(ctx);
  const quota = role === 'reseller' ? { quota: { keysLeft: 50, maxDays: 30, allowLifetime: false } } : {};
  const invite = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body: { role, ...quota } });
  const accepted = await call(app, 'POST', `/api/v1/invites/${invite.body.data.code}/accept`, { key: account.accountKey });
  if (accepted.status !== 200) throw new Error(`invite as ${role}: ${JSON.stringify(accepted.body)}`);
  return account;
}
const MEMBERS = [
  { role: 'manager' as const, account: await member('manager') },
  { role: 'support' as const, account: await member('support') },
  { role: 'reseller' as const, account: await member('reseller') },
];

const browser: Browser = await launchChromium();

async function signIn(page: Page, account: SeededAccount) {
  await page.goto(`${baseUrl}/login`);
  await page.getByRole('textbox', { name: 'Username' }).fill(account.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(account.password);
  await page.locator('altcha-widget input[type="checkbox"]').click();
  await page.locator('altcha-widget [data-state="verified"]').waitFor();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'New service' }).waitFor();
}

const SIGNED_OUT = [
  { name: 'login', path: '/login' },
  { name: 'register', path: '/register' },
];
const SELLER = [
  { name: 'services', path: '/services' },
  // Every section of a service (web/src/layout/sections.ts), so a new page is never left out.
  ...SECTIONS.map(({ slug }) => ({ name: slug, path: `/services/${s.id}/${slug}` })),
  { name: 'account', path: '/account' },
];
const STAFF = [{ name: 'staff', path: '/staff' }];

let written = 0;
async function shoot(page: Page, pages: Array<{ name: string; path: string }>, suffix: string) {
  for (const { name, path } of pages) {
    await page.goto(`${baseUrl}${path}`);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: new URL(`${name}-${suffix}.png`, OUT).pathname, fullPage: true });
    written += 1;
  }
}

/**
 * The banner a seller sees when BASE_URL is not the address they opened: the served page's BASE_URL is swapped for
 * http://localhost:3000 (a real mismatched origin would lose the session cookie and refuse sign-in).
 */
async function shootBaseUrlWarning(page: Page, suffix: string) {
  const overview = `${baseUrl}/services/${s.id}/overview`;
  await page.route(overview, async (route) => {
    const response = await route.fetch();
    const html = (await response.text()).replace(/(name="keyward-base-url" content=")[^"]*/, '$1http://localhost:3000');
    await route.fulfill({ response, body: html });
  });
  await page.goto(overview);
  await page.getByRole('status').filter({ hasText: 'BASE_URL' }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: new URL(`base-url-warning-${suffix}.png`, OUT).pathname, fullPage: true });
  await page.unroute(overview);
  written += 1;
}

/** Waits until the page's opening transitions (a modal's fade, a drawer's slide) have finished. */
const settled = (page: Page) =>
  page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined))));

/** The dialogs of contract §22: a key whose time starts at redemption, and a script's versions. */
async function shootDialogs(page: Page, suffix: string) {
  await page.goto(`${baseUrl}/services/${s.id}/keys?search=${fromRedemption}`);
  await page.getByRole('button', { name: fromRedemption!, exact: true }).click();
  await page
    .getByRole('dialog', { name: `Key ${fromRedemption}` })
    .getByText('from redemption')
    .first()
    .waitFor();
  await settled(page);
  await page.screenshot({ path: new URL(`key-after-redeem-${suffix}.png`, OUT).pathname, fullPage: true });
  await page.goto(`${baseUrl}/services/${s.id}/scripts`);
  await page.getByRole('button', { name: 'Versions: main.lua' }).click();
  await page.getByRole('button', { name: 'Restore version 1' }).waitFor();
  await settled(page);
  await page.screenshot({ path: new URL(`versions-${suffix}.png`, OUT).pathname, fullPage: true });
  written += 2;
}

/** Milliseconds from navigation until the keys table shows rows and the search box takes input. */
async function keysPageInteractive(page: Page): Promise<number> {
  const started = Date.now();
  await page.goto(`${baseUrl}/services/${s.id}/keys`);
  await page.getByRole('table', { name: 'Keys' }).getByRole('row').nth(20).waitFor();
  const search = page.getByRole('searchbox', { name: 'Search' });
  await search.waitFor({ state: 'visible' });
  await search.fill('x'); // throws unless the box is visible, enabled and editable
  const interactive = Date.now() - started;
  await search.fill('');
  return interactive;
}

try {
  await mkdir(OUT, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      const suffix = `${width}-${scheme}`;
      const options = { viewport: { width, height: width === 375 ? 812 : 900 }, colorScheme: scheme };
      const signedOut = await browser.newContext(options);
      await shoot(await signedOut.newPage(), SIGNED_OUT, suffix);
      await signedOut.close();
      const seller = await browser.newContext(options);
      const page = await seller.newPage();
      await signIn(page, s.account);
      await shoot(page, SELLER, suffix);
      if (scheme === 'light') await shootBaseUrlWarning(page, suffix);
      if (scheme === 'light') await shootDialogs(page, suffix);
      await seller.close();
      const staff = await browser.newContext(options);
      const adminPage = await staff.newPage();
      await signIn(adminPage, admin);
      await shoot(adminPage, STAFF, suffix);
      await staff.close();
      if (scheme !== 'light') continue;
      for (const { role, account } of MEMBERS) {
        const context = await browser.newContext(options);
        const memberPage = await context.newPage();
        await signIn(memberPage, account);
        const sections = SECTIONS.filter(({ action }) => roleMay(role, action));
        const pages = [
          { name: 'services', path: '/services' },
          ...sections.map(({ slug }) => ({ name: slug, path: `/services/${s.id}/${slug}` })),
        ];
        await shoot(
          memberPage,
          pages.map((p) => ({ ...p, name: `member-${role}-${p.name}` })),
          suffix,
        );
        await context.close();
      }
    }
  }
  console.log(`${written} screenshots written to ${OUT.pathname}`);

  if (measure) {
    // JS shipped: every script the keys page loads, gzip-compressed as a server would send it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, s.account);
    const scripts = new Set<string>();
    page.on('response', (r) => r.url().endsWith('.js') && scripts.add(new URL(r.url()).pathname));
    // The first load fetches the keys page's code; the next ones have it cached, as a returning seller does.
    const cold = await keysPageInteractive(page);
    const warm: number[] = [];
    for (let run = 0; run < 5; run += 1) warm.push(await keysPageInteractive(page));
    warm.sort((a, b) => a - b);
    let gzip = 0;
    let raw = 0;
    const dist = new URL('../web/dist/', import.meta.url);
    for (const path of scripts) {
      const code = await readFile(new URL(`.${path}`, dist));
      raw += code.length;
      gzip += gzipSync(code).length;
    }
    const all = (await readdir(new URL('assets/', dist))).filter((f) => f.endsWith('.js'));
    let allGzip = 0;
    for (const file of all) allGzip += gzipSync(await readFile(new URL(`assets/${file}`, dist))).length;
    console.log(`keys page with ${total + 1} keys in the service:`);
    console.log(
      `  time until the rows and the search box are interactive: first load ${cold} ms, then median ${warm[2]} ms (${warm.join(', ')} ms)`,
    );
    console.log(
      `  JS loaded by the keys page: ${scripts.size} files, ${(raw / 1024).toFixed(0)} KB, ${(gzip / 1024).toFixed(0)} KB gzip; ` +
        `every chunk built: ${all.length} files, ${(allGzip / 1024).toFixed(0)} KB gzip`,
    );
    await context.close();
  }
} finally {
  await browser.close();
  await app.close();
  await t.database.drop();
}
