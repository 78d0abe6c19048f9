import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';

/** Contract §27: readable lines on a terminal (or LOG_FORMAT=pretty), JSON for a collector (not a terminal, or LOG_FORMAT=json). */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.app.close();
  await t.database.drop();
});

/** Starts the server with `env`, asks for /healthz once and answers every line printed until that request ended. */
async function linesOfOneRequest(env: Record<string, string>): Promise<string[]> {
  const server = await startServerProcess({ KEYWARD_SECRET: TEST_SECRET, ...t.database.env, ...env });
  try {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await server.waitFor((lines) => lines.some((line) => /request completed/.test(line)));
    return server.lines;
  } finally {
    await server.stop();
  }
}

describe('the server log', () => {
  it('with LOG_FORMAT=pretty writes one readable line a request: time, level, method and path, then status and duration', async () => {
    const lines = await linesOfOneRequest({ LOG_FORMAT: 'pretty' });
    const logLines = lines.filter((line) => /healthz/.test(line) || /request completed/.test(line));
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(line.trimStart().startsWith('{')).toBe(false);
    expect(lines.some((line) => /\d\d:\d\d:\d\d.*INFO.*GET \/healthz/.test(line))).toBe(true);
    expect(lines.some((line) => /\b200 [\d.]+ ms request completed/.test(line))).toBe(true);
  });

  it('writes JSON when its output is not a terminal, as a log collector reads it', async () => {
    const lines = await linesOfOneRequest({});
    const completed = lines.find((line) => /request completed/.test(line))!;
    const entry = JSON.parse(completed) as { res: { statusCode: number }; responseTime: number };
    expect(entry.res.statusCode).toBe(200);
    expect(typeof entry.responseTime).toBe('number');
  });

  it('refuses a LOG_FORMAT it does not know, naming it', async () => {
    const server = await startServerProcess({ KEYWARD_SECRET: TEST_SECRET, ...t.database.env, LOG_FORMAT: 'xml' }).catch(
      (error: Error) => error,
    );
    expect(String(server instanceof Error ? server.message : '')).toContain('LOG_FORMAT must be pretty or json');
  });
});
