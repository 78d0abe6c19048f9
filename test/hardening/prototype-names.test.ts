import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService, type SeededService } from '../helpers/seed.ts';

// Contract §22: a body field named __proto__, constructor or prototype is a 400 naming it, on every route, like any
// unknown field; a variable so named is a 400. (They used to be removed in silence: PUT variables with __proto__
// answered 200 and emptied the set; POST generate with __proto__ answered 201.)
const t = useTestApp();
let s: SeededService;
let key = '';
beforeAll(async () => {
  s = await seedService(t().ctx);
  await t().ctx.db.updateTable('services').set({ allowVss: 1, allowUrlShortener: 1 }).where('id', '=', s.id).execute();
  t().ctx.services.forget({ id: s.id, identifier: s.identifier });
  key = (await generateKeys(t().app, s.serviceKey))[0]!;
});

/** The JSON text of `base` with one more field, written by hand: a JS object literal cannot hold an own __proto__. */
function withField(base: Record<string, unknown>, name: string, at: string[] = []): string {
  const extra = `"${name}":{"polluted":true}`;
  if (at.length === 0) return `{${extra}${Object.keys(base).length ? ',' : ''}${JSON.stringify(base).slice(1)}`;
  // Nested: inside the object at `at` (e.g. variables).
  const text = JSON.stringify(base);
  const marker = `"${at.join('":{"')}":{`;
  const i = text.indexOf(marker) + marker.length;
  return `${text.slice(0, i)}${extra}${text[i] === '}' ? '' : ','}${text.slice(i)}`;
}

type Auth = 'service' | 'account' | 'none';
const families: Array<{ family: string; method: 'POST' | 'PUT'; url: () => string; auth: Auth; body: () => Record<string, unknown> }> = [
  {
    family: 'keys: generate',
    method: 'POST',
    url: () => '/api/v1/keys/api/generate',
    auth: 'service',
    body: () => ({ expirationType: 'lifetime' }),
  },
  { family: 'keys: edit', method: 'PUT', url: () => '/api/v1/keys/api/key', auth: 'service', body: () => ({ key, note: 'x' }) },
  {
    family: 'keys: bulk',
    method: 'POST',
    url: () => '/api/v1/keys/api/keys/bulk',
    auth: 'service',
    body: () => ({ action: 'pause', keys: [key] }),
  },
  { family: 'keyless', method: 'POST', url: () => '/api/v1/keys/api/keyless', auth: 'service', body: () => ({ hwid: 'pc-9' }) },
  { family: 'blacklist', method: 'POST', url: () => '/api/v1/keys/api/blacklist', auth: 'service', body: () => ({ hwid: 'pc-9' }) },
  { family: 'settings', method: 'PUT', url: () => '/api/v1/keys/api/settings', auth: 'service', body: () => ({ webhookEnabled: false }) },
  { family: 'variables', method: 'PUT', url: () => '/api/v1/keys/api/variables', auth: 'service', body: () => ({ variables: { a: 'b' } }) },
  {
    family: 'event endpoints',
    method: 'POST',
    url: () => '/api/v1/keys/api/event-endpoints',
    auth: 'service',
    body: () => ({ url: 'https://example.com/hook', events: ['*'] }),
  },
  { family: 'products', method: 'POST', url: () => '/api/v1/keys/api/products', auth: 'service', body: () => ({ name: 'P' }) },
  {
    family: 'scripts (streamed upload)',
    method: 'POST',
    url: () => '/api/v1/vss/api/scripts',
    auth: 'service',
    body: () => ({ name: 'x', code: 'print(1)' }),
  },
  {
    family: 'validation (client)',
    method: 'POST',
    url: () => '/api/v1/keys/validate',
    auth: 'none',
    body: () => ({ service: s.id, key, hwid: 'pc-1' }),
  },
  {
    family: 'relay (public)',
    method: 'POST',
    url: () => `/api/v1/public/relay/${s.id}`,
    auth: 'none',
    body: () => ({ key, hwid: 'pc-1', content: 'hi' }),
  },
  {
    family: 'self-serve reset (public)',
    method: 'POST',
    url: () => '/api/v1/public/reset-hwid',
    auth: 'none',
    body: () => ({ service: s.id, key }),
  },
  { family: 'services (account)', method: 'POST', url: () => '/api/v1/services', auth: 'account', body: () => ({ name: 'svc' }) },
  { family: 'sign-in', method: 'POST', url: () => '/api/v1/auth/login', auth: 'none', body: () => ({ username: 'nobody', password: 'x' }) },
  {
    family: 'shortener',
    method: 'POST',
    url: () => '/api/v1/public/shortener/create',
    auth: 'service',
    body: () => ({ url: 'https://example.com' }),
  },
];

describe.each(['__proto__', 'constructor', 'prototype'])('a body field named %s', (name) => {
  it.each(families)('is a 400 naming it: $family', async ({ method, url, auth, body }) => {
    const credential = auth === 'service' ? s.serviceKey : auth === 'account' ? s.account.accountKey : undefined;
    const res = await call(t().app, method, url(), { key: credential, body: withField(body(), name) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.field).toBe(name);
    expect(res.body.error).toContain(name);
  });

  it('is a 400 as a variable, and the variables stay as they were', async () => {
    const set = await call(t().app, 'PUT', '/api/v1/keys/api/variables', { key: s.serviceKey, body: { variables: { kept: 'yes' } } });
    expect(set.status).toBe(200);
    const res = await call(t().app, 'PUT', '/api/v1/keys/api/variables', {
      key: s.serviceKey,
      body: withField({ variables: { other: 'no' } }, name, ['variables']),
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(`variables.${name}`);
    const now = await call(t().app, 'GET', '/api/v1/keys/api/variables', { key: s.serviceKey });
    expect(now.body.data.variables).toEqual({ kept: 'yes' });
  });

  it('is a 400 when spelled with \\u escapes', async () => {
    const escaped = [...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const res = await call(t().app, 'POST', '/api/v1/keys/api/generate', {
      key: s.serviceKey,
      body: `{"${escaped}":{"x":1},"expirationType":"lifetime"}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(name);
  });
});

it('still takes a value that merely contains such a word', async () => {
  const res = await call(t().app, 'PUT', '/api/v1/keys/api/variables', {
    key: s.serviceKey,
    body: { variables: { words: 'constructor __proto__ prototype' } },
  });
  expect(res.status).toBe(200);
});
