import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { redactUrl } from '../../src/lib/redact.ts';
import { TEST_SECRET } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { generateKeys, seedService } from '../helpers/seed.ts';

/** Contract §10: logs never hold a license key, API key, token or captcha through the request URL. */
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

describe('request logs redact secret query values', () => {
  it('logs a validate call with its key, apiKey, token and hash values replaced', async () => {
    const s = await seedService(app.ctx);
    const [key] = await generateKeys(app, s.serviceKey);
    const secrets = [key!, 'api-secret-9f1c', 'token-secret-77ab', 'hash-secret-c0de'];
    const url =
      `/api/v1/keys/validate?service=${s.identifier}&key=${encodeURIComponent(key!)}&hwid=pc-1` +
      `&apiKey=${secrets[1]}&token=${secrets[2]}&hash=${secrets[3]}`;
    expect((await app.inject({ method: 'GET', url })).statusCode).toBe(200);
    const log = lines.join('');
    expect(log).toContain(`hwid=pc-1`);
    expect(log).toContain('key=[REDACTED]');
    for (const secret of secrets) expect(log).not.toContain(secret);
  });

  it.each([
    ['/a?key=s1&x=1', '/a?key=[REDACTED]&x=1'],
    ['/a?APIKEY=s1', '/a?APIKEY=[REDACTED]'],
    ['/a?%6Bey=s1', '/a?%6Bey=[REDACTED]'],
    ['/a?keys=1&hashes=2', '/a?keys=1&hashes=2'],
    ['/a', '/a'],
  ])('redactUrl(%s) is %s', (input, output) => {
    expect(redactUrl(input)).toBe(output);
  });
});
