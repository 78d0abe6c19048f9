import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { seedAccount } from '../helpers/seed.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { freePort } from '../helpers/free-port.ts';

/** New-user frictions of issue 8: BASE_URL follows PORT, a wrong BASE_URL is reported, the first-account hint only when needed. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
});

/** Runs the server until it has said whether BASE_URL reaches it; answers what it printed. */
async function startupOutput(env: Record<string, string>): Promise<{ out: string[]; err: string; library: string }> {
  const port = await freePort();
  const server = await startServerProcess({ BASE_URL: '', KEYWARD_SECRET: TEST_SECRET, PORT: String(port), ...t.database.env, ...env });
  try {
    await server.waitFor(
      (lines, stderr) => lines.some((line) => line.startsWith('BASE_URL ')) || /BASE_URL .* does not reach/.test(stderr),
    );
    const library = await (await fetch(`http://127.0.0.1:${port}/api/v1/lua/library.lua`)).text();
    return { out: server.lines, err: server.stderr(), library };
  } finally {
    await server.stop();
  }
}

describe('start-up', () => {
  it('defaults BASE_URL to the listening port, finds it reachable, and hints at the first account while there is none', async () => {
    const { out, err, library } = await startupOutput({});
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out.join('\n'))![1];
    expect(out).toContain(`BASE_URL http://localhost:${port} reaches this server`);
    expect(library).toContain(`http://localhost:${port}`);
    expect(out.some((line) => line.startsWith('Create the first account:'))).toBe(true);
    expect(err).not.toContain('warning');
  });

  it('warns when BASE_URL does not reach the server, and gives no hint once an account exists', async () => {
    await seedAccount(t.ctx);
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const { out, err } = await startupOutput({ BASE_URL: nobody });
    expect(err).toContain(`warning: BASE_URL ${nobody} does not reach this server (ECONNREFUSED)`);
    expect(out.some((line) => line.startsWith('Create the first account:'))).toBe(false);
  });
});

describe('the first-account hint is the command the page tells them to use (contract §22)', () => {
  it('under systemd it is the keyward wrapper of docs/deploy.md, and the page prints the same line', async () => {
    const { readFileSync } = await import('node:fs');
    const fresh = await startTestApp();
    try {
      const port = await freePort();
      const server = await startServerProcess({
        BASE_URL: '',
        KEYWARD_SECRET: TEST_SECRET,
        PORT: String(port),
        INVOCATION_ID: 'systemd-unit',
        ...fresh.database.env,
      });
      try {
        await server.waitFor((lines) => lines.some((line) => line.startsWith('Create the first account:')));
        const hint = server.lines.find((line) => line.startsWith('Create the first account:'))!;
        expect(hint).toBe('Create the first account: keyward account create --username admin --role admin');
        expect(readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8')).toContain(hint);
      } finally {
        await server.stop();
      }
    } finally {
      await fresh.app.close();
      await fresh.database.drop();
    }
  }, 90_000);
});
