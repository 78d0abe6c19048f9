import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

/**
 * Contract §10: text the databases cannot store (a NUL, a lone surrogate) is a 400 naming the field on
 * both databases. The sweep walks every documented route so a route added later is covered too.
 */
const t = useTestApp();

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: { type?: string };
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { type?: string }> } }> };
}

const BAD = 'a\u0000b';
const GOOD = 'x1';

describe('a NUL in any string of any documented route is never a 500', () => {
  it('sweeps path, query and body strings of every route in /openapi.json', async () => {
    const { app, ctx } = t();
    const s = await seedService(ctx);
    const vault = await call(app, 'POST', '/api/v1/vault-v3/session/token', { key: s.account.accountKey });
    const vaultToken = vault.status === 200 ? String(vault.body.data.token) : '';
    const doc = (await call(app, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };

    const tried: string[] = [];
    const failures: string[] = [];
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [lower, operation] of Object.entries(operations)) {
        const method = lower.toUpperCase() as Method;
        const params = operation.parameters ?? [];
        const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
        const queryParams = params.filter((p) => p.in === 'query' && p.schema?.type === 'string').map((p) => p.name);
        const bodyProps = Object.entries(operation.requestBody?.content?.['application/json']?.schema?.properties ?? {})
          .filter(([, schema]) => schema.type === 'string')
          .map(([name]) => name);
        const url = (nulIn?: string, query = '') =>
          template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(name === nulIn ? BAD : GOOD)) + query;
        const cases: Array<[string, string, unknown]> = [
          ...pathParams.map((name): [string, string, unknown] => [name, url(name), undefined]),
          ...queryParams.map((name): [string, string, unknown] => [name, url(undefined, `?${name}=${encodeURIComponent(BAD)}`), undefined]),
          ...bodyProps.map((name): [string, string, unknown] => [name, url(), { [name]: BAD }]),
        ];
        for (const [field, target, body] of cases) {
          const vaultRoute = template.startsWith('/api/v3/vault');
          const headers: Record<string, string> = vaultRoute ? { authorization: `Bearer ${vaultToken}` } : { 'x-service-id': s.identifier };
          const res = await call(app, method, target, { key: vaultRoute ? undefined : s.account.accountKey, headers, body });
          tried.push(`${method} ${template} ${field}`);
          if (res.status >= 500) failures.push(`${method} ${template} ${field}: ${res.status} ${JSON.stringify(res.body)}`);
          // Where the route got as far as reading input, the answer names the field.
          if (res.status === 400 && res.body?.code === 'VALIDATION_ERROR' && res.body.error?.includes('NUL')) {
            expect(res.body.field, `${method} ${template}`).toBe(field);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    // The sweep really covered the routes the finding named.
    expect(tried).toEqual(expect.arrayContaining(['PATCH /api/v1/services/{id} id', 'GET /api/v1/keys/api/blacklist search']));
    expect(tried.length).toBeGreaterThan(100);
  });

  it.each([
    ['a path parameter', 'GET', `/api/v1/services/${encodeURIComponent(BAD)}`, undefined, 'id'],
    ['a query parameter', 'GET', `/api/v1/keys/api/blacklist?search=${encodeURIComponent(BAD)}`, undefined, 'search'],
    ['a body field', 'PATCH', '/api/v1/services/SERVICE', { name: BAD }, 'name'],
    ['a lone surrogate', 'PATCH', '/api/v1/services/SERVICE', { name: 'a\uD800b' }, 'name'],
    ['a property name', 'PATCH', '/api/v1/services/SERVICE', { ['n\u0000']: 'x' }, 'n\u0000'],
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
