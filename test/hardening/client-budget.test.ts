import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';
import { uploadScript } from '../scripts/script-helpers.ts';

/** Contract §10: one budget per address and service, whatever spelling, case or route names it. */
const t = useTestApp({ RATE_LIMIT_CLIENT_PER_MINUTE: '3' });

const get = (url: string, remoteAddress: string) => call(t().app, 'GET', url, { remoteAddress });

describe('the client budget is keyed on the resolved service', () => {
  it('counts every case spelling of a script id, on check and fetch, and /keys/validate against one budget', async () => {
    const s = await seedService(t().ctx);
    const script = await uploadScript(t().app, s, { name: 'game', code: 'print(1)' });
    const address = '203.0.113.10';
    expect((await get(`/api/v1/lua/check/${script.id.toLowerCase()}?key=nope`, address)).status).toBe(200);
    expect((await get(`/api/v1/vss/fetch/${script.id.toUpperCase()}?key=nope`, address)).status).toBe(200);
    expect((await get(`/api/v1/keys/validate?service=${s.identifier}&key=nope&hwid=pc`, address)).status).toBe(200);
    const fourth = await get(`/api/v1/lua/check/${script.id.toUpperCase().slice(0, 8)}${script.id.slice(8)}?key=nope`, address);
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ code: 'RATE_LIMITED' });
    // Another service of the same address keeps its own budget.
    const other = await seedService(t().ctx);
    expect((await get(`/api/v1/keys/validate?service=${other.id}&key=nope&hwid=pc`, address)).status).toBe(200);
  });

  it('gives names that resolve to nothing one shared budget', async () => {
    const address = '203.0.113.11';
    const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c'];
    for (const id of ids) expect((await get(`/api/v1/vss/fetch/${id}`, address)).status).toBe(404);
    expect((await get(`/api/v1/keys/validate?service=no-such-service&key=k&hwid=pc`, address)).status).toBe(429);
  });
});
