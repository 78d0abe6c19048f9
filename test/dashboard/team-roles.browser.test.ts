import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { call, seedAccount, seedService, type SeededAccount, type SeededService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

// Contract §25 "each role sees its own dashboard", in Debian's Chromium at 1280 and 375 px: the owner, a manager,
// support staff and a reseller open the keys, scripts, settings and team pages by address. What the role may use
// shows its buttons; what it may not shows one sentence naming the role, with no Try again and none of the page's
// buttons (support used to see Upload script, Create invite link… above "Could not load this").
const d = useDashboard();
const WAIT = { timeout: 20_000 };

type Who = 'owner' | 'manager' | 'support' | 'reseller';
let s: SeededService;
const people = {} as Record<Who, SeededAccount>;

async function join(role: Exclude<Who, 'owner'>, quota?: Record<string, unknown>) {
  const { ctx, app } = d.app();
  const account = await seedAccount(ctx);
  const invite = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, {
    key: s.account.accountKey,
    body: { role, ...(quota && { quota }) },
  });
  expect(invite.status, JSON.stringify(invite.body)).toBe(201);
  expect((await call(app, 'POST', `/api/v1/invites/${invite.body.data.code}/accept`, { key: account.accountKey })).status).toBe(200);
  return account;
}

beforeAll(async () => {
  s = await seedService(d.app().ctx);
  people.owner = s.account;
  people.manager = await join('manager');
  people.support = await join('support');
  people.reseller = await join('reseller', { keysLeft: 3 });
});

/** Each page's own buttons: present for a role that opens the page, absent (with the page) for one that does not. */
const PAGES = {
  keys: { title: 'Keys', buttons: ['Generate keys', 'Import', 'Compensate'] },
  scripts: { title: 'Scripts', buttons: ['Upload script'] },
  settings: { title: 'Settings', buttons: ['Save cooldowns'] },
  team: { title: 'Team', buttons: ['Create invite link'] },
} as const;
type Slug = keyof typeof PAGES;

/** What each role sees on each page: the buttons shown, or `null` for the one sentence. From contract §17's table. */
const SEES: Record<Who, Record<Slug, readonly string[] | null>> = {
  owner: {
    keys: ['Generate keys', 'Import', 'Compensate'],
    scripts: ['Upload script'],
    settings: ['Save cooldowns'],
    team: ['Create invite link'],
  },
  manager: { keys: ['Generate keys', 'Import', 'Compensate'], scripts: ['Upload script'], settings: ['Save cooldowns'], team: null },
  support: { keys: [], scripts: null, settings: null, team: null },
  reseller: { keys: ['Generate keys'], scripts: null, settings: null, team: null },
};

async function checkPage(page: Page, who: Who, slug: Slug) {
  await page.goto(d.url(`/services/${s.id}/${slug}`));
  const { title, buttons } = PAGES[slug];
  await page.getByRole('heading', { name: title, level: 2 }).waitFor(WAIT);
  const shown = SEES[who][slug];
  const sentence = page.getByText(`Your role on this service (${who}) does not open this page.`, { exact: true });
  if (shown === null) {
    await sentence.waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Try again' }).count(), `${who} ${slug}`).toBe(0);
    expect(await page.getByText('Could not load this').count(), `${who} ${slug}`).toBe(0);
    for (const name of buttons) expect(await page.getByRole('button', { name, exact: true }).count(), `${who} ${slug}: ${name}`).toBe(0);
    return;
  }
  for (const name of shown) await page.getByRole('button', { name, exact: true }).first().waitFor(WAIT);
  for (const name of buttons.filter((b) => !shown.includes(b)))
    expect(await page.getByRole('button', { name, exact: true }).count(), `${who} ${slug}: ${name}`).toBe(0);
  expect(await sentence.count()).toBe(0);
}

/** The sections a role finds in the navigation, as contract §17's table gives them. */
const NAV: Record<Who, string[]> = {
  owner: ['Overview', 'Keys', 'Keyless', 'Blacklist', 'Scripts', 'Key system', 'Analytics', 'Audit log', 'Settings', 'Discord'],
  manager: ['Overview', 'Keys', 'Keyless', 'Blacklist', 'Scripts', 'Key system', 'Analytics', 'Audit log', 'Settings', 'Discord'],
  support: ['Keys', 'Keyless', 'Blacklist', 'Analytics', 'Audit log'],
  reseller: ['Keys'],
};

describe('each role sees its own dashboard (contract §25)', () => {
  for (const width of [1280, 375]) {
    for (const who of ['owner', 'manager', 'support', 'reseller'] as const) {
      it(`${who} at ${width} px: its pages with their buttons, the others as one sentence without Try again`, async () => {
        const page = await d.signedInPage(people[who], `/services/${s.id}/keys`, { width });
        // Signed in once the login page has gone on to the keys page (a goto before that would cut the sign-in short).
        await page.getByRole('heading', { name: 'Keys', level: 2 }).waitFor(WAIT);
        for (const slug of Object.keys(PAGES) as Slug[]) await checkPage(page, who, slug);

        // The navigation lists what the role opens (behind the burger on a phone), and Team only for the owner.
        await page.goto(d.url(`/services/${s.id}/keys`));
        if (width < 768) await page.getByRole('button', { name: 'Sections' }).click();
        const nav = page.getByRole('navigation', { name: 'Service sections' });
        await nav.getByRole('link', { name: 'Keys' }).waitFor(WAIT);
        const links = await nav.getByRole('link').allInnerTexts();
        expect(links.slice(0, NAV[who].length)).toEqual(NAV[who]);
        expect(links.includes('Team')).toBe(who === 'owner');
        await page.context().close();
      });
    }
  }
});
