import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrlMeta } from '../../src/modules/dashboard/dashboard.routes.ts';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { freePort } from '../helpers/free-port.ts';
import { mismatchedBaseUrl } from '../../web/src/lib/baseUrl.ts';

/** Contract §11, the BASE_URL trap: the start sentence, and what the dashboard needs to warn. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
});

describe('start-up without BASE_URL', () => {
  it('says in one sentence, on a non-loopback address, that links will point at localhost and how to set BASE_URL', async () => {
    const port = await freePort();
    const server = await startServerProcess({
      HOST: '0.0.0.0',
      PORT: String(port),
      BASE_URL: '',
      KEYWARD_SECRET: TEST_SECRET,
      ...t.database.env,
    });
    try {
      await server.waitFor((_lines, stderr) => stderr.includes('BASE_URL is not set'));
      const warning = server
        .stderr()
        .split('\n')
        .find((line) => line.includes('BASE_URL is not set'))!;
      expect(warning).toBe(
        `keyward: warning: BASE_URL is not set, so loadstrings and links will point at http://localhost:${port}, which only this machine can open; ` +
          'set BASE_URL to the address buyers use (for example BASE_URL=https://keys.example.com) and restart.',
      );
      // The library it serves does point there, which is what the sentence warns of.
      expect(await (await fetch(`http://127.0.0.1:${port}/api/v1/lua/library.lua`)).text()).toContain(`http://localhost:${port}`);
      expect(server.lines.some((line) => line.includes('reaches this server'))).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it('stays quiet about it on a loopback address, where localhost is right', async () => {
    const port = await freePort();
    const server = await startServerProcess({
      HOST: '127.0.0.1',
      PORT: String(port),
      BASE_URL: '',
      KEYWARD_SECRET: TEST_SECRET,
      ...t.database.env,
    });
    try {
      await server.waitFor((lines) => lines.some((line) => line.startsWith('BASE_URL ')));
      expect(server.lines).toContain(`BASE_URL http://localhost:${port} reaches this server`);
      expect(server.stderr()).not.toContain('BASE_URL is not set');
    } finally {
      await server.stop();
    }
  });
});

describe('the dashboard learns BASE_URL', () => {
  it('from a meta element in the page it is served', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/services' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<meta name="keyward-base-url" content="http://keyward.test" />');
  });

  it('escapes it as an attribute', () => {
    expect(baseUrlMeta('http://a.test/"><script>')).toBe(
      '<meta name="keyward-base-url" content="http://a.test/&quot;&gt;&lt;script&gt;" />',
    );
  });

  it('warns only when the page is open at another origin than BASE_URL', () => {
    expect(mismatchedBaseUrl('https://keys.example.com', 'https://keys.example.com')).toBeNull();
    expect(mismatchedBaseUrl('https://keys.example.com/', 'https://keys.example.com')).toBeNull();
    expect(mismatchedBaseUrl('http://localhost:3000', 'https://keys.example.com')).toBe('http://localhost:3000');
    expect(mismatchedBaseUrl('http://keys.example.com', 'https://keys.example.com')).toBe('http://keys.example.com');
    expect(mismatchedBaseUrl(null, 'https://keys.example.com')).toBeNull();
  });
});
