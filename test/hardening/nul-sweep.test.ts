import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { signIn, SIGNIN_ENV } from '../signin/helpers.ts';

/**
 * Contract §10: text the databases cannot store (a NUL, a lone surrogate) is a 400 naming the field on
 * both databases. The sweep walks every route the app has (hidden ones too: the pages, /go, the assets),
 * so a route added later is covered too; string fields come from /openapi.json, path parameters from the
 * route itself, and every route also gets an unknown query parameter (the check runs whatever the schema).
 */
const t = useTestApp(SIGNIN_ENV);

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Schema {
  type?: string;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

const BAD = 'a\u0000b';
const GOOD = 'x1';
const takesText = (schema: Schema | undefined): boolean => schema?.type === 'string' || (schema?.anyOf ?? []).some(takesText);

/** Every route of the app as `METHOD /path/:param`, read from Fastify's route tree (HEAD left out: it is GET's). */
function allRoutes(app: App): string[] {
  const parents: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    parents.length = depth;
    const path = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = path;
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes;
}

/** Query strings of routes /openapi.json does not describe (the pages a user's browser opens). */
const HIDDEN_QUERY: Record<string, string[]> = {
  'GET /key/:service': ['restart'],
  'GET /key/:service/return': ['session', 'token', 'hash'],
};

describe('a NUL in any string of any route is a 400 naming the field', () => {
  it('sweeps path, query and body strings of every route, documented or not, signed in as staff', async () => {
    const { app, ctx } = t();
    // An admin's service: account-key routes take the key, session and staff routes the cookie and CSRF token,
    // so every route gets past authentication and really reaches the check.
    const admin = await seedAccount(ctx, 'admin');
    const s = await seedService(ctx, admin);
    const session = await signIn(app, admin);
    const vault = await call(app, 'POST', '/api/v1/vault-v3/session/token', { key: admin.accountKey });
    expect(vault.status).toBe(200);
    const vaultToken = String(vault.body.data.token);
    const doc = (await call(app, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const documented = new Map<string, Operation>();
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        documented.set(`${method.toUpperCase()} ${template.replace(/\{([^}]+)\}/g, ':$1')}`, operation);
      }
    }
    const routes = allRoutes(app);
    // The route tree was read right: it holds every documented route, and the hidden ones the finding named.
    expect(routes).toEqual(expect.arrayContaining([...documented.keys(), 'GET /reset/:service', 'GET /key/:service', 'GET /go/:slug']));

    const tried: string[] = [];
    const failures: string[] = [];
    for (const route of routes) {
      const [method, template] = route.split(' ') as [Method, string];
      const operation = documented.get(route);
      const pathParams = [...template.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
      const queryParams = [
        ...(operation?.parameters ?? []).filter((p) => p.in === 'query' && takesText(p.schema)).map((p) => p.name),
        ...(HIDDEN_QUERY[route] ?? []),
        // Not in any schema: the check covers what a route does not declare too.
        'unknown',
      ];
      const bodyFields = Object.entries(operation?.requestBody?.content?.['application/json']?.schema?.properties ?? {}).flatMap(
        ([name, schema]): Array<[string, unknown]> =>
          takesText(schema) ? [[name, BAD]] : schema.type === 'array' && takesText(schema.items) ? [[`${name}.0`, [BAD]]] : [],
      );
      // The Luarmor API reads its key and project from the path (contract §16.1): real ones, so the sweep gets past them.
      // An account's own service routes check membership and role before input (contract §27): a real service id, so
      // the sweep reaches the input check; a NUL in that id is a service nobody has, 404 like any unknown one.
      const ownsService = template.startsWith('/api/v1/services/:id');
      const good = (name: string) =>
        name === 'api_key' ? admin.accountKey : name === 'project_id' ? s.identifier : ownsService && name === 'id' ? s.id : GOOD;
      const url = (nulIn?: string, query = '') =>
        template.replace(/:(\w+)|\*/g, (_m, name: string | undefined) =>
          encodeURIComponent((name ?? '*') === nulIn ? BAD : good(name ?? '*')),
        ) + query;
      const cases: Array<[string, string, unknown]> = [
        ...pathParams.map((name): [string, string, unknown] => [name, url(name), undefined]),
        ...queryParams.map((name): [string, string, unknown] => [name, url(undefined, `?${name}=${encodeURIComponent(BAD)}`), undefined]),
        ...bodyFields.map(([field, value]): [string, string, unknown] => [field, url(), { [field.replace(/\.0$/, '')]: value }]),
      ];
      const vaultRoute = template.startsWith('/api/v3/vault');
      const headers: Record<string, string> = {
        ...session.headers,
        ...(vaultRoute ? { authorization: `Bearer ${vaultToken}` } : { 'x-service-id': s.identifier }),
      };
      for (const [field, target, body] of cases) {
        const res = await call(app, method, target, { key: vaultRoute ? undefined : admin.accountKey, headers, body });
        tried.push(`${route} ${field}`);
        // The Luarmor API answers in Luarmor's envelope (§16.1): the sentence names the field.
        const luarmor = template.startsWith('/luarmor');
        const named = luarmor
          ? res.status === 400 && res.body?.success === false && String(res.body.message).startsWith(field)
          : res.status === 400 && res.body?.code === 'VALIDATION_ERROR' && res.body.field === field;
        if (ownsService && field === 'id' && res.status === 404 && res.body?.code === 'NOT_FOUND') continue;
        if (!named || !String(luarmor ? res.body.message : res.body.error).includes('NUL character')) {
          failures.push(`${route} ${field}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // The sweep really covered the routes the finding named.
    expect(tried).toEqual(
      expect.arrayContaining([
        'PATCH /api/v1/services/:id id',
        'GET /api/v1/keys/api/blacklist search',
        'GET /reset/:service service',
        'POST /api/v1/chat/interactions/:service service',
        'DELETE /api/v1/public/shortener/links slug',
        'GET /api/v1/admin/accounts search',
        'PATCH /api/v1/admin/accounts/:id id',
        'GET /go/:slug slug',
        'GET /key/:service/return token',
      ]),
    );
    expect(tried.length).toBeGreaterThan(250);
  });

  it.each([
    ['a path parameter', 'GET', `/api/v1/services/${encodeURIComponent(BAD)}`, undefined, 'id'],
    ['a query parameter', 'GET', `/api/v1/keys/api/blacklist?search=${encodeURIComponent(BAD)}`, undefined, 'search'],
    ['a body field', 'PATCH', '/api/v1/services/SERVICE', { name: BAD }, 'name'],
    ['a lone surrogate', 'PATCH', '/api/v1/services/SERVICE', { name: 'a\uD800b' }, 'name'],
    ['a property name', 'PATCH', '/api/v1/services/SERVICE', { ['n\u0000']: 'x' }, 'n\u0000'],
    // Script code goes through its own streaming parser into bytes: the NUL byte is still found, and named `code`.
    ['script code', 'POST', '/api/v1/vss/api/scripts', { name: 'nul-code', code: 'print(1)\u0000' }, 'code'],
  ] as const)('answers %s with a 400 naming the field', async (_label, method, url, body, field) => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const res = await call(app, method, url.replace('SERVICE', s.identifier), {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.identifier },
      body,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
    expect(res.body.error).toContain('NUL character or an unpaired surrogate');
  });
});
