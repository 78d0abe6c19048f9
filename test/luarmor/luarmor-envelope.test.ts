// Contract §27: every answer under /luarmor is in Luarmor's envelope, also for a path no route takes and for a path
// parameter longer than the router matches (they fell through to the dashboard's HTML before).
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { seedService } from '../helpers/seed.ts';

const t = useTestApp();
const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, authorization = 'kws_unknown') =>
  t().app.inject({
    method,
    url,
    headers: { authorization, 'content-type': 'application/json' },
    payload: method === 'GET' ? undefined : '{}',
  });

describe('/luarmor answers only in its envelope (§27)', () => {
  it('answers an unknown path 404 { success: false, message: "Not found" }, on every method', async () => {
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE'] as const) {
      for (const url of ['/luarmor/nope', '/luarmor/v3/nope', '/luarmor/v3/projects/x/users/nope/deeper', '/luarmor/v4/keys/x/stats']) {
        const res = await send(method, url);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual({ success: false, message: 'Not found' });
      }
    }
  });

  it('answers an over-long path parameter 400 in the envelope', async () => {
    const s = await seedService(t().ctx);
    const long = 'a'.repeat(300);
    for (const [method, url] of [
      ['GET', `/luarmor/v3/projects/${long}/users`],
      ['POST', `/luarmor/v3/projects/${long}/users/resethwid`],
      ['GET', `/luarmor/v3/keys/${long}/stats`],
      ['DELETE', `/luarmor/v3/projects/${s.id}/users/${long}`],
    ] as const) {
      const res = await send(method, url, s.serviceKey);
      expect(res.statusCode, `${method} ${url.slice(0, 40)}`).toBe(400);
      expect(res.json()).toMatchObject({ success: false, message: expect.stringContaining('too long') });
    }
  });
});
