import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp();
const url = '/api/v1/keys/api/key-system';

describe('GET/PUT /keys/api/key-system', () => {
  it('answers the defaults before anything is set, with the page address', async () => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'GET', url, { key: s.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      enabled: false,
      checkpoints: 1,
      keyHours: 24,
      minSecondsPerCheckpoint: 15,
      provider: 'none',
      links: [],
      providerToken: null,
      pageTitle: null,
      accentColor: null,
      maxKeysPerAddressPerDay: 3,
      pageUrl: `http://keyward.test/key/${s.identifier}`,
    });
  });

  it('saves a provider setup, reads the token back as **** and keeps it sealed at rest', async () => {
    const s = await seedService(t().ctx);
    const body = {
      enabled: true,
      checkpoints: 2,
      keyHours: 12,
      minSecondsPerCheckpoint: 30,
      provider: 'linkvertise',
      links: ['https://link-to.net/1/one', 'https://link-to.net/1/two'],
      providerToken: 'secret-provider-token',
      pageTitle: 'Free keys',
      maxKeysPerAddressPerDay: 5,
    };
    const put = await call(t().app, 'PUT', url, { key: s.serviceKey, body });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ ...body, providerToken: '****' });
    expect((await call(t().app, 'GET', url, { key: s.serviceKey })).body.data).toEqual(put.body.data);
    const row = await t().ctx.db.selectFrom('keySystemSettings').selectAll().where('serviceId', '=', s.id).executeTakeFirstOrThrow();
    expect(row.providerTokenSealed).not.toContain('secret-provider-token');
    expect(t().ctx.sealer.open(row.providerTokenSealed!)).toBe('secret-provider-token');

    // A partial PUT keeps the rest; null clears the title; the provider needs the token, so clearing it is refused.
    const patched = await call(t().app, 'PUT', url, { key: s.serviceKey, body: { pageTitle: null, keyHours: 48 } });
    expect(patched.body.data).toMatchObject({ pageTitle: null, keyHours: 48, provider: 'linkvertise', providerToken: '****' });
    const cleared = await call(t().app, 'PUT', url, { key: s.serviceKey, body: { providerToken: null } });
    expect(cleared.status).toBe(400);
    expect(cleared.body.field).toBe('providerToken');
  });

  it('writes one keySystem.update audit entry per change, with what changed and never the token', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'PUT', url, {
      key: s.serviceKey,
      body: { enabled: true, provider: 'lootlabs', links: ['https://loot-link.com/s?a'], providerToken: 'hush-hush-token' },
    });
    const audit = await call(t().app, 'GET', '/api/v1/keys/api/audit?action=keySystem.update', { key: s.serviceKey });
    expect(audit.status).toBe(200);
    expect(audit.body.data.items).toHaveLength(1);
    expect(audit.body.data.items[0]).toMatchObject({
      action: 'keySystem.update',
      actor: { kind: 'service-key' },
      target: null,
      details: { enabled: true, provider: 'lootlabs', links: ['https://loot-link.com/s?a'], providerToken: '****' },
    });
    expect(JSON.stringify(audit.body)).not.toContain('hush-hush-token');
    // A refused change writes nothing.
    await call(t().app, 'PUT', url, { key: s.serviceKey, body: { providerToken: null } });
    expect(
      (await call(t().app, 'GET', '/api/v1/keys/api/audit?action=keySystem.update', { key: s.serviceKey })).body.data.items,
    ).toHaveLength(1);
  });

  it('refuses a provider without links or without a token, naming the missing one', async () => {
    const s = await seedService(t().ctx);
    const noLinks = await call(t().app, 'PUT', url, { key: s.serviceKey, body: { provider: 'linkvertise', providerToken: 'x' } });
    expect(noLinks.status).toBe(400);
    expect(noLinks.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'links' });
    const noToken = await call(t().app, 'PUT', url, {
      key: s.serviceKey,
      body: { provider: 'lootlabs', links: ['https://loot-link.com/s?abc'] },
    });
    expect(noToken.status).toBe(400);
    expect(noToken.body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'providerToken' });
    const wrongCount = await call(t().app, 'PUT', url, {
      key: s.serviceKey,
      body: { provider: 'workink', checkpoints: 3, links: ['https://work.ink/a'], providerToken: '10345' },
    });
    expect(wrongCount.status).toBe(400);
    expect(wrongCount.body.field).toBe('links');
    // Work.ink's check needs no key: its token setting is the seller's link ids, so a token can be bound to them.
    for (const providerToken of ['an-api-key', '10345,', '10345;10346', 'abc,123']) {
      const notIds = await call(t().app, 'PUT', url, {
        key: s.serviceKey,
        body: { provider: 'workink', links: ['https://work.ink/a'], providerToken },
      });
      expect({ providerToken, status: notIds.status, field: notIds.body.field }).toEqual({
        providerToken,
        status: 400,
        field: 'providerToken',
      });
      expect(notIds.body.error).toMatch(/Work\.ink link ids/);
    }

    // Nothing was saved by the refusals.
    expect((await call(t().app, 'GET', url, { key: s.serviceKey })).body.data.provider).toBe('none');
    const w = await seedService(t().ctx);
    const ids = await call(t().app, 'PUT', url, {
      key: w.serviceKey,
      body: { provider: 'workink', links: ['https://work.ink/a'], providerToken: '10345,10346' },
    });
    expect(ids.status).toBe(200);
    expect(ids.body.data).toMatchObject({ provider: 'workink', providerToken: '****' });
  });

  it.each([
    [{ checkpoints: 0 }, 'checkpoints'],
    [{ checkpoints: 6 }, 'checkpoints'],
    [{ checkpoints: '2' }, 'checkpoints'],
    [{ keyHours: 721 }, 'keyHours'],
    [{ minSecondsPerCheckpoint: 601 }, 'minSecondsPerCheckpoint'],
    [{ provider: 'adfly' }, 'provider'],
    [{ links: ['http://work.ink/a'] }, 'links.0'],
    [{ links: 'https://work.ink/a' }, 'links'],
    [{ links: Array(6).fill('https://work.ink/a') }, 'links'],
    [{ pageTitle: 'x'.repeat(101) }, 'pageTitle'],
    [{ pageTitle: 'a\u0000b' }, 'pageTitle'],
    [{ enabled: 'true' }, 'enabled'],
    [{ maxKeysPerAddressPerDay: -1 }, 'maxKeysPerAddressPerDay'],
    [{ colour: 'red' }, 'colour'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const s = await seedService(t().ctx);
    const res = await call(t().app, 'PUT', url, { key: s.serviceKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  // Contract §2 and §7: every GET outside /vss/api is ungated; §8's (allowManageKeys) gates the PUT. README, Key system.
  it('needs allowManageKeys to change, not to read; another account’s service is a 404', async () => {
    const s = await seedService(t().ctx);
    await call(t().app, 'PATCH', `/api/v1/services/${s.id}/permissions`, { key: s.account.accountKey, body: { allowManageKeys: false } });
    expect((await call(t().app, 'GET', url, { key: s.serviceKey })).status).toBe(200);
    const denied = await call(t().app, 'PUT', url, { key: s.serviceKey, body: { enabled: true } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('PERMISSION_DENIED');
    // The owner's account key acts as the owner.
    const owner = await call(t().app, 'PUT', url, {
      key: s.account.accountKey,
      headers: { 'x-service-id': s.id },
      body: { enabled: true },
    });
    expect(owner.status).toBe(200);

    const stranger = await seedService(t().ctx);
    const other = await call(t().app, 'GET', url, { key: stranger.account.accountKey, headers: { 'x-service-id': s.id } });
    expect(other.status).toBe(404);
    expect((await call(t().app, 'GET', url)).status).toBe(401);
  });
});
