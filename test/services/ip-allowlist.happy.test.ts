import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededService } from '../helpers/seed.ts';

const t = useTestApp();

const setAllowlist = (s: SeededService, entries: string[]) =>
  call(t().app, 'PUT', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey, body: { entries } });
const infoFrom = (s: SeededService, remoteAddress: string, key = s.serviceKey, headers: Record<string, string> = {}) =>
  call(t().app, 'GET', '/api/v1/keys/api/service/info', { key, remoteAddress, headers });

describe('GET/PUT /api/v1/services/:id/ip-allowlist', () => {
  it('starts empty and stores what PUT sends', async () => {
    const s = await seedService(t().ctx);
    const empty = await call(t().app, 'GET', `/api/v1/services/${s.id}/ip-allowlist`, { key: s.account.accountKey });
    expect(empty.body).toEqual({ success: true, data: { entries: [] } });
    const put = await setAllowlist(s, ['10.0.0.1', '192.168.0.0/16', '0.0.0.0/0', '255.255.255.255/32']);
    expect(put.status).toBe(200);
    expect(put.body.data.entries).toEqual(['10.0.0.1', '192.168.0.0/16', '0.0.0.0/0', '255.255.255.255/32']);
    const read = await call(t().app, 'GET', `/api/v1/services/${s.identifier}/ip-allowlist`, { key: s.account.accountKey });
    expect(read.body.data.entries).toEqual(['10.0.0.1', '192.168.0.0/16', '0.0.0.0/0', '255.255.255.255/32']);
  });

  it('accepts exactly 100 entries', async () => {
    const s = await seedService(t().ctx);
    const entries = Array.from({ length: 100 }, (_, i) => `10.0.${i}.1`);
    const res = await setAllowlist(s, entries);
    expect(res.status).toBe(200);
    expect(res.body.data.entries).toHaveLength(100);
  });

  it('lets everyone in with an empty list, including IPv6 clients', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, []);
    expect((await infoFrom(s, '203.0.113.9')).status).toBe(200);
    expect((await infoFrom(s, '2001:db8::1')).status).toBe(200);
  });

  it('admits an exact address and refuses its neighbours', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, ['203.0.113.7']);
    expect((await infoFrom(s, '203.0.113.7')).status).toBe(200);
    const out = await infoFrom(s, '203.0.113.8');
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({ success: false, code: 'IP_NOT_ALLOWED' });
  });

  it('admits addresses inside a CIDR range and refuses those outside', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, ['198.51.100.0/24', '10.1.2.3']);
    expect((await infoFrom(s, '198.51.100.0')).status).toBe(200);
    expect((await infoFrom(s, '198.51.100.255')).status).toBe(200);
    expect((await infoFrom(s, '10.1.2.3')).status).toBe(200);
    expect((await infoFrom(s, '198.51.101.0')).status).toBe(403);
    expect((await infoFrom(s, '198.51.99.255')).status).toBe(403);
  });

  it('counts an IPv4-mapped IPv6 client as its IPv4 address', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, ['1.2.3.4']);
    expect((await infoFrom(s, '::ffff:1.2.3.4')).status).toBe(200);
    expect((await infoFrom(s, '::ffff:1.2.3.5')).status).toBe(403);
  });

  it('puts every other IPv6 client outside an IPv4 list, even 0.0.0.0/0', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, ['0.0.0.0/0']);
    expect((await infoFrom(s, '9.9.9.9')).status).toBe(200);
    expect((await infoFrom(s, '2001:db8::1')).status).toBe(403);
    expect((await infoFrom(s, '::1')).status).toBe(403);
    expect((await infoFrom(s, '::102:304')).status).toBe(403);
  });

  it('ignores X-Forwarded-For when TRUST_PROXY is not set', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, ['1.2.3.4']);
    const spoofed = await infoFrom(s, '9.9.9.9', s.serviceKey, { 'x-forwarded-for': '1.2.3.4' });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.code).toBe('IP_NOT_ALLOWED');
  });

  it('does not restrict the account key acting as the owner', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, ['1.2.3.4']);
    const res = await infoFrom(s, '9.9.9.9', s.account.accountKey, { 'x-service-id': s.id });
    expect(res.status).toBe(200);
    // The management routes themselves are never behind the allowlist.
    const read = await call(t().app, 'GET', `/api/v1/services/${s.id}/ip-allowlist`, {
      key: s.account.accountKey,
      remoteAddress: '9.9.9.9',
    });
    expect(read.status).toBe(200);
  });

  it('removes the restriction when the list is emptied again', async () => {
    const s = await seedService(t().ctx);
    await setAllowlist(s, ['1.2.3.4']);
    expect((await infoFrom(s, '9.9.9.9')).status).toBe(403);
    await setAllowlist(s, []);
    expect((await infoFrom(s, '9.9.9.9')).status).toBe(200);
  });
});
