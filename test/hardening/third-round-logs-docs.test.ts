import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { redactUrl } from '../../src/lib/redact.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { generateKeys, seedService } from '../helpers/seed.ts';

// Guarantees: /docs carries the dashboard's security headers; no license key reaches a log, however its query
// parameter is spelled.
let app: App;
let database: TestDatabase;
const lines: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({ KEYWARD_SECRET: TEST_SECRET, BASE_URL: 'http://keyward.test', ...database.env });
  config.migrateOnStart = false;
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  app = await buildApp({ config, database: database.handle, logger: { level: 'info', stream } });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await database.drop();
});

describe('/docs carries the same security headers as the dashboard', () => {
  it.each(['/docs', '/docs/', '/docs/static/index.html', '/docs/static/swagger-initializer.js'])('GET %s', async (url) => {
    const dashboard = await app.inject({ method: 'GET', url: '/' });
    const docs = await app.inject({ method: 'GET', url });
    expect(docs.statusCode).toBeLessThan(400);
    for (const name of ['content-security-policy', 'x-content-type-options', 'referrer-policy']) {
      expect(dashboard.headers[name]).toBeTruthy();
      expect(docs.headers[name], name).toBe(dashboard.headers[name]);
    }
    expect(docs.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

describe('no license key reaches the log, however its parameter is spelled', () => {
  it('redacts key[]=, ;key=, KEY=, percent-encoded and doubly encoded names on a real validate call', async () => {
    const s = await seedService(app.ctx);
    const [key] = await generateKeys(app, s.serviceKey);
    const spellings = [
      (k: string) => `key[]=${k}`,
      (k: string) => `hwid=pc-1;key=${k}`,
      (k: string) => `KEY=${k}`,
      (k: string) => `key%5B%5D=${k}`,
      (k: string) => `%6B%65%79=${k}`,
      (k: string) => `k%2565y=${k}`,
      (k: string) => `key[0]=${k}`,
      (k: string) => `license_key=${k}`,
      (k: string) => `Key%20=${k}`,
    ];
    for (const spelling of spellings) {
      lines.length = 0;
      const url = `/api/v1/keys/validate?service=${s.identifier}&${spelling(key!)}&hwid=pc-1`;
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBeLessThan(500);
      const log = lines.join('');
      expect(log, spelling('…')).toContain('[REDACTED]');
      expect(log, spelling('…')).not.toContain(key!);
    }
  });

  it.each([
    ['/a?key[]=s1&x=1', '/a?key[]=[REDACTED]&x=1'],
    ['/a?x=1;key=s1', '/a?x=1;key=[REDACTED]'],
    ['/a?key=s1;x=1', '/a?key=[REDACTED];x=1'],
    ['/a?%6Bey%5B%5D=s1', '/a?%6Bey%5B%5D=[REDACTED]'],
    ['/a?api_key=s1', '/a?api_key=[REDACTED]'],
    ['/a?hwid=pc-1&service=x', '/a?hwid=pc-1&service=x'],
  ])('redactUrl(%s) is %s', (input, output) => {
    expect(redactUrl(input)).toBe(output);
  });
});
