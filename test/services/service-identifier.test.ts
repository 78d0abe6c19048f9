// Contract §27: a new service's identifier is its name's slug when free (a suffix only on a collision), and the
// KEY_HWID_LOCKED message links the reset page by that identifier, never the service's UUID.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedAccount, seedService } from '../helpers/seed.ts';

const t = useTestApp();

describe('service identifiers from the name', () => {
  it('are the slug when free, and the slug with a suffix only when taken', async () => {
    const a = await seedAccount(t().ctx);
    const name = `Blox Fruits ${process.pid}!`;
    const first = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name } });
    expect(first.status).toBe(201);
    expect(first.body.data.identifier).toBe(`blox-fruits-${process.pid}`);
    const second = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body: { name } });
    expect(second.status).toBe(201);
    expect(second.body.data.identifier).toMatch(new RegExp(`^blox-fruits-${process.pid}-[a-z0-9]{6}$`));
  });

  it('still refuse a taken identifier the seller chose (409)', async () => {
    const a = await seedAccount(t().ctx);
    const body = { name: 'Mine', identifier: `mine-${process.pid}` };
    expect((await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body })).status).toBe(201);
    const again = await call(t().app, 'POST', '/api/v1/services', { key: a.accountKey, body });
    expect(again.status).toBe(409);
  });
});

describe('KEY_HWID_LOCKED', () => {
  it('links the reset page by the service identifier, whichever way the client named the service', async () => {
    const s = await seedService(t().ctx);
    const [key] = await generateKeys(t().app, s.serviceKey);
    for (const ref of [s.identifier, s.id]) {
      const validate = (hwid: string) => call(t().app, 'GET', `/api/v1/keys/validate?service=${ref}&key=${key}&hwid=${hwid}`);
      await validate('pc-1');
      const locked = (await validate('pc-2')).body.data;
      expect(locked.code).toBe('KEY_HWID_LOCKED');
      expect(locked.message).toContain(`/reset/${s.identifier} `);
      expect(locked.message).not.toContain(s.id);
    }
  });
});
