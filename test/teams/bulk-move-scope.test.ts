// Contract §27: a manager's bulk move puts keys only into a service where that account may generate keys; any other
// target is 404 and nothing moves.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, generateKeys, seedService } from '../helpers/seed.ts';
import { addMember, asMember } from './team-helpers.ts';

const t = useTestApp();
const where = async (serviceKey: string, key: string) =>
  (await call(t().app, 'GET', `/api/v1/keys/api/generated-key?key=${key}`, { key: serviceKey })).status;

describe('bulk move by a manager (§17, §27)', () => {
  it('refuses a target where the manager is a stranger or may not generate, and moves into one where it may', async () => {
    const a = await seedService(t().ctx);
    const b = await seedService(t().ctx, a.account);
    const manager = await addMember(t().app, t().ctx, a, 'manager');
    const [key] = await generateKeys(t().app, a.serviceKey);
    const move = () => asMember(t().app, manager, a, 'POST', '/keys/api/keys/bulk', { action: 'move', keys: [key], toService: b.id });

    const stranger = await move();
    expect(stranger.status, JSON.stringify(stranger.body)).toBe(404);
    expect(stranger.body).toMatchObject({ code: 'NOT_FOUND' });
    expect(await where(a.serviceKey, key!)).toBe(200);
    expect(await where(b.serviceKey, key!)).toBe(404);

    // A support member of the target may not generate there: still 404, nothing moves.
    const invite = await call(t().app, 'POST', `/api/v1/services/${b.id}/invites`, {
      key: a.account.accountKey,
      body: { role: 'support' },
    });
    expect((await call(t().app, 'POST', `/api/v1/invites/${invite.body.data.code}/accept`, { key: manager.accountKey })).status).toBe(200);
    expect((await move()).status).toBe(404);
    expect(await where(a.serviceKey, key!)).toBe(200);

    const promoted = await call(t().app, 'PATCH', `/api/v1/services/${b.id}/members/${manager.id}`, {
      key: a.account.accountKey,
      body: { role: 'manager' },
    });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    const moved = await move();
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await where(b.serviceKey, key!)).toBe(200);
  });

  it('lets the owner move between its own services as before', async () => {
    const a = await seedService(t().ctx);
    const b = await seedService(t().ctx, a.account);
    const [key] = await generateKeys(t().app, a.serviceKey);
    const res = await call(t().app, 'POST', '/api/v1/keys/api/keys/bulk', {
      key: a.serviceKey,
      body: { action: 'move', keys: [key], toService: b.id },
    });
    expect(res.status).toBe(200);
    expect(await where(b.serviceKey, key!)).toBe(200);
  });
});
