import { afterAll, beforeAll } from 'vitest';
import injectRequest, { type InjectOptions } from 'light-my-request';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export const TEST_SECRET = 'test-secret-0123456789abcdef';

/** A clock tests move by hand: no sleeps stand in for time passing. */
export class TestClock {
  now = Date.UTC(2026, 10, 22, 10, 0, 0);
  read = () => this.now;
  advance(ms: number) {
    this.now += ms;
  }
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  clock: TestClock;
  database: TestDatabase;
  config: Config;
}

/** The production app on this file's own database. Rate limits are off unless the env turns them on. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    KEYWARD_SECRET: TEST_SECRET,
    BASE_URL: 'http://keyward.test',
    RATE_LIMIT_CLIENT_PER_MINUTE: '0',
    RATE_LIMIT_API_PER_MINUTE: '0',
    RATE_LIMIT_LOGIN_PER_MINUTE: '0',
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0',
    ...database.env,
    ...env,
  });
  config.migrateOnStart = false;
  const clock = new TestClock();
  const app = await buildApp({ config, database: database.handle, clock: clock.read, logger: false });
  await app.ready();
  throughHotLane(app);
  return { app, ctx: app.ctx, clock, database, config };
}

/**
 * Tests' requests reach the app as a client's do: through the server's listener, where the hot lane answers what it
 * can (plugins/hot-lane.ts) and hands Fastify the rest. Fastify's own inject would skip the lane.
 */
export function throughHotLane(app: App): void {
  app.inject = ((options: InjectOptions) => injectRequest(app.hotLane.dispatch, options)) as App['inject'];
}

/** Starts one app for the whole file and closes it (and drops its database) afterwards. */
/** `env` may be a function, read when the app starts, for values another beforeAll learns first (a fake's port). */
export function useTestApp(env: Record<string, string> | (() => Record<string, string>) = {}): () => TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await startTestApp(typeof env === 'function' ? env() : env);
  });
  afterAll(async () => {
    if (!current) return;
    await current.app.close();
    await current.database.drop();
  });
  return () => {
    if (!current) throw new Error('the test app is not started yet');
    return current;
  };
}

/** A second app instance over the same database and clock, as behind a load balancer. The caller closes it. */
export async function anotherInstance(first: TestApp, config: Config = first.config): Promise<App> {
  const app = await buildApp({ config, database: first.database.handle, clock: first.clock.read, logger: false });
  await app.ready();
  throughHotLane(app);
  return app;
}
