import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';

const t = useTestApp();

describe('/docs', () => {
  it('gives every operation of /openapi.json a summary and a description', async () => {
    const document = (await t().app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { summary?: string; description?: string }>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op })),
    );
    expect(operations.length).toBeGreaterThan(80);
    const bare = operations.filter(({ op }) => !op.summary?.trim() || !op.description?.trim()).map(({ at }) => at);
    expect(bare).toEqual([]);
  });
});
