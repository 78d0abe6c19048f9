import { describe, expect, it } from 'vitest';
import { generateApiFiles, readCheckedIn } from '../../scripts/gen-api.ts';

describe("the dashboard's typed client", () => {
  it('was generated from the current API (run `npm run gen:api` and commit when this fails)', async () => {
    const fresh = await generateApiFiles();
    const current = readCheckedIn();
    expect(current.openapi.length).toBeGreaterThan(0);
    // Compared as parsed documents first so a failure names the route that changed.
    expect(Object.keys(JSON.parse(current.openapi).paths).sort()).toEqual(Object.keys(JSON.parse(fresh.openapi).paths).sort());
    expect(current.openapi === fresh.openapi).toBe(true);
    expect(current.schema === fresh.schema).toBe(true);
    expect(current.reference === fresh.reference).toBe(true);
  });
});
