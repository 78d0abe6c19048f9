import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { silentLog, type AppContext } from '../../src/context.ts';
import { createContext } from '../../src/modules/state.ts';
import type { Db } from '../../src/db/database.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { launchChromium } from '../helpers/browser.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/free-port.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { SIGNIN_ENV } from '../signin/helpers.ts';

/**
 * One real server process (`src/server.ts`, as `npm start` runs it) and one Debian Chromium per browser test file
 * (never a downloaded browser), on this file's own database: a fresh SQLite file, or a fresh copy of the
 * PostgreSQL template. The test keeps a direct handle on that database to check what the dashboard wrote.
 */
export interface Dashboard {
  /** The database the server process uses, opened by the test. */
  db: Db;
  /**
   * A context over that database (role `cli`: no jobs, it only tells the server what it changed), for the
   * seeding helpers that create accounts and services the way the CLI does.
   */
  ctx: AppContext;
  /** The server's configuration, as the process loaded it from the same environment. */
  config: Config;
  /**
   * The server process behind the `App` shape that the seeding helpers (`call`, `generateKeys`, `uploadScript`)
   * take: their `inject` goes over HTTP to the listening process. Only `inject` is there.
   */
  app: App;
}

/** The environment of the server process: the tests' secret, rate limits off, a cheap captcha, open registration. */
function serverEnv(database: TestDatabase, port: number, extra: Record<string, string>): Record<string, string> {
  return {
    KEYWARD_SECRET: TEST_SECRET,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_CLIENT_PER_MINUTE: '0',
    RATE_LIMIT_API_PER_MINUTE: '0',
    RATE_LIMIT_LOGIN_PER_MINUTE: '0',
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    ...SIGNIN_ENV,
    ...database.env,
    ...extra,
  };
}

/** `app.inject` over real HTTP: what `call()` reads back (status, headers with set-cookie as a list, body). */
function injectOverHttp(baseUrl: string) {
  return async (options: { method: string; url: string; headers?: Record<string, string>; payload?: string }) => {
    const response = await fetch(`${baseUrl}${options.url}`, { method: options.method, headers: options.headers, body: options.payload });
    const body = await response.text();
    const headers: Record<string, string | string[]> = Object.fromEntries(response.headers);
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) headers['set-cookie'] = cookies;
    return { statusCode: response.status, headers, body, json: () => JSON.parse(body) as unknown };
  };
}

export function useDashboard(env: Record<string, string> | (() => Record<string, string>) = {}) {
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  let current: Dashboard | undefined;
  let browser: Browser | undefined;
  // What each page of the running test met, printed when it fails: a flake on a loaded CI machine is then read from
  // the log (an error toast, an answer of 4xx or 5xx) instead of guessed.
  let pages: { page: Page; failures: string[] }[] = [];
  afterEach(async ({ task }) => {
    const opened = pages;
    pages = [];
    if (task.result?.state !== 'fail') return;
    for (const [index, { page, failures }] of opened.entries()) {
      const shown = page.isClosed()
        ? []
        : await page
            .locator('[role="alert"], .mantine-Notification-root')
            .allInnerTexts()
            .catch(() => []);
      console.error(
        [
          `page ${index + 1}: ${page.isClosed() ? '(closed)' : page.url()}`,
          `  on screen: ${shown.length > 0 ? shown.map((text) => JSON.stringify(text)).join(', ') : 'no alert or notification'}`,
          `  API answers of 400 and above: ${failures.length > 0 ? failures.join(', ') : 'none'}`,
        ].join('\n'),
      );
    }
  });
  beforeAll(async () => {
    database = await createTestDatabase();
    const processEnv = serverEnv(database, await freePort(), typeof env === 'function' ? env() : env);
    server = await startServerProcess(processEnv);
    const config = loadConfig(processEnv);
    const ctx = await createContext({ config, database: database.handle, ownsDatabase: false, log: silentLog, role: 'cli' });
    current = { db: database.handle.db, ctx, config, app: { inject: injectOverHttp(server.url) } as unknown as App };
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await current?.ctx.close();
    await database?.drop();
  });
  const baseUrl = () => {
    if (!server) throw new Error('the server process is not started yet');
    return server.url;
  };
  return {
    app: (): Dashboard => {
      if (!current) throw new Error('the server process is not started yet');
      return current;
    },
    url: (path: string) => `${baseUrl()}${path}`,
    /** A fresh context (own cookies) with clipboard access, so "Copy" buttons can be read back. */
    async newPage(options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
      const context = await browser!.newContext({
        acceptDownloads: true,
        viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
        colorScheme: options.colorScheme ?? 'light',
      });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
      // A wait that cannot finish fails well inside the test's own timeout, naming the locator it waited for.
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      const failures: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400)
          failures.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
      });
      pages.push({ page, failures });
      return page;
    },
    /** Signs `account` in on `page` through the login page, which then goes on to `path`. */
    async signIn(page: Page, account: { username: string; password: string }, path: string): Promise<void> {
      await signInWithPassword(page, this.url(`/login?next=${encodeURIComponent(path)}`), account.username, account.password);
    },
    /** A fresh page (as `newPage`) with `account` signed in and on `path`. */
    async signedInPage(
      account: { username: string; password: string },
      path: string,
      options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
    ): Promise<Page> {
      const page = await this.newPage(options);
      await this.signIn(page, account, path);
      return page;
    },
  };
}

/** Passes the ALTCHA widget the way a person does: ticks it and waits for the proof-of-work. */
export async function solveCaptcha(page: Page) {
  await page.locator('altcha-widget input[type="checkbox"]').click();
  await page.locator('altcha-widget [data-state="verified"]').waitFor();
}

export async function signInWithPassword(page: Page, url: string, username: string, password: string) {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await solveCaptcha(page);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
