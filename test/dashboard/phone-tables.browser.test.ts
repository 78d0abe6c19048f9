import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { useDashboard } from './browser.ts';

/**
 * Contract §27, 375 px: the audit log (its By column) and the scripts table read without sideways scrolling, in
 * Debian Chromium against the real server. Neither the page nor the table's own scroll container may be wider than
 * the phone, with the longest names a seller may give (a 64-character script name has no space to wrap at).
 */
const d = useDashboard();
const PHONE = { width: 375, height: 812 };

/** How far the page, or any box from the table up to the page, reaches past its own width. */
const sideways = (page: Page, table: Locator) =>
  table.evaluate((node) => {
    let worst = document.documentElement.scrollWidth - window.innerWidth;
    for (let at: Element | null = node; at; at = at.parentElement) worst = Math.max(worst, at.scrollWidth - at.clientWidth);
    return worst;
  });

const onScreen = async (page: Page, locator: Locator) => {
  const box = await locator.boundingBox();
  return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= page.viewportSize()!.width;
};

describe('at 375 px (contract §27)', () => {
  it('the scripts table fits the phone: the long name wraps, its actions and switches are on screen', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const long = 'autofarm_teleport_hub-with-every-game-mode.and.the.boss.raids.v2';
    expect(long).toHaveLength(64);
    for (const name of [long, 'main.lua']) {
      const made = await call(app, 'POST', '/api/v1/vss/api/scripts', {
        key: s.serviceKey,
        body: { name, code: 'print("hi")', obfuscationType: 'NONE' },
      });
      expect(made.status).toBe(201);
    }
    const page = await d.signedInPage(s.account, `/services/${s.id}/scripts`, PHONE);
    const table = page.getByRole('table', { name: 'Scripts' });
    const row = table.getByRole('row').filter({ hasText: long });
    await row.waitFor();
    await table.getByRole('row').filter({ hasText: 'main.lua' }).waitFor();
    expect(await sideways(page, table)).toBe(0);
    expect(await onScreen(page, row.getByText(long))).toBe(true);
    for (const control of [
      row.getByRole('button', { name: 'Copy loadstring' }),
      row.getByRole('button', { name: `Versions: ${long}` }),
      row.getByRole('button', { name: 'Delete' }),
      row.getByRole('switch', { name: `Visible: ${long}` }),
    ])
      expect(await onScreen(page, control)).toBe(true);
    await page.context().close();
  }, 60_000);

  it('the audit log fits the phone: who did it shows under the sentence, nothing sideways', async () => {
    const { ctx, app } = d.app();
    const s = await seedService(ctx);
    const manager = await seedAccount(ctx);
    const invite = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, { key: s.account.accountKey, body: { role: 'manager' } });
    expect((await call(app, 'POST', `/api/v1/invites/${invite.body.data.code}/accept`, { key: manager.accountKey })).status).toBe(200);
    const banned = await call(app, 'POST', '/api/v1/keys/api/blacklist', {
      key: manager.accountKey,
      headers: { 'x-service-id': s.id },
      body: {
        hwid: 'a1b2c3d4e5f60718293a4b5c6d7e8f90-roblox-pc',
        reason: 'Chargeback through PayPal after three weeks, and shared the key',
      },
    });
    expect(banned.status).toBeLessThan(300);
    const page = await d.signedInPage(s.account, `/services/${s.id}/audit-log`, PHONE);
    const table = page.getByRole('table', { name: 'Audit log' });
    const row = table.getByRole('row').filter({ hasText: 'Chargeback' });
    await row.waitFor();
    expect(await sideways(page, table)).toBe(0);
    const by = row.getByText(manager.username);
    expect(await by.count()).toBeGreaterThan(0);
    expect(await onScreen(page, by.first())).toBe(true);
    await page.context().close();
  }, 60_000);
});
