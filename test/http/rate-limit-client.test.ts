import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService } from '../helpers/seed.ts';

const t = useTestApp({ RATE_LIMIT_CLIENT_PER_MINUTE: '2' });

const validate = (service: string, remoteAddress: string) =>
  call(t().app, 'GET', `/api/v1/keys/validate?service=${service}&key=nope&hwid=pc`, { remoteAddress });

describe('client rate limit (RATE_LIMIT_CLIENT_PER_MINUTE=2)', () => {
  it('refuses the third validate from one address for one service with 429 and Retry-After', async () => {
    const s = await seedService(t().ctx);
    expect((await validate(s.id, '198.51.100.1')).status).toBe(200);
    expect((await validate(s.id, '198.51.100.1')).status).toBe(200);
    const third = await validate(s.id, '198.51.100.1');
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(third.headers['ratelimit-limit']).toBe('2');
  });

  it('leaves another service unaffected for the same address', async () => {
    const busy = await seedService(t().ctx);
    const other = await seedService(t().ctx);
    for (let i = 0; i < 3; i++) await validate(busy.id, '198.51.100.2');
    expect((await validate(busy.id, '198.51.100.2')).status).toBe(429);
    expect((await validate(other.id, '198.51.100.2')).status).toBe(200);
  });

  it('leaves another address unaffected for the same service', async () => {
    const s = await seedService(t().ctx);
    for (let i = 0; i < 3; i++) await validate(s.id, '198.51.100.3');
    expect((await validate(s.id, '198.51.100.3')).status).toBe(429);
    expect((await validate(s.id, '198.51.100.4')).status).toBe(200);
  });

  it('counts a service once whether it is named by id or by identifier', async () => {
    const s = await seedService(t().ctx);
    expect((await validate(s.id, '198.51.100.6')).status).toBe(200);
    expect((await validate(s.identifier, '198.51.100.6')).status).toBe(200);
    expect((await validate(s.identifier, '198.51.100.6')).status).toBe(429);
  });

  it('counts GET and POST validate against one budget', async () => {
    const s = await seedService(t().ctx);
    const post = () =>
      call(t().app, 'POST', '/api/v1/keys/validate', { body: { service: s.id, key: 'nope', hwid: 'pc' }, remoteAddress: '198.51.100.5' });
    expect((await validate(s.id, '198.51.100.5')).status).toBe(200);
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);
  });
});
