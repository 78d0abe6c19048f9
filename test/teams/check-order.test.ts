// Contract §17, §27: checks run in order for members too: authentication, membership (404), role (403), then input.
import { describe, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedAccount, seedService } from '../helpers/seed.ts';
import { expectError } from '../helpers/records.ts';
import { addMember } from './team-helpers.ts';

const t = useTestApp();

describe('check order on owner-only account routes (§17, §27)', () => {
  it('answers a member asking for the webhook reveal 403 ROLE_FORBIDDEN, a stranger 404', async () => {
    const s = await seedService(t().ctx);
    const manager = await addMember(t().app, t().ctx, s, 'manager');
    const stranger = await seedAccount(t().ctx);
    expectError(await call(t().app, 'GET', `/api/v1/services/${s.id}/webhook`, { key: manager.accountKey }), 403, 'ROLE_FORBIDDEN');
    expectError(await call(t().app, 'GET', `/api/v1/services/${s.id}/webhook`, { key: stranger.accountKey }), 404, 'NOT_FOUND');
  });

  it('answers an invalid invite body 404 for a stranger and 403 for a member, before reading it', async () => {
    const s = await seedService(t().ctx);
    const support = await addMember(t().app, t().ctx, s, 'support');
    const stranger = await seedAccount(t().ctx);
    const invite = (key: string) => call(t().app, 'POST', `/api/v1/services/${s.id}/invites`, { key, body: { role: 'emperor' } });
    expectError(await invite(stranger.accountKey), 404, 'NOT_FOUND');
    expectError(await invite(support.accountKey), 403, 'ROLE_FORBIDDEN');
    expectError(await invite(s.account.accountKey), 400, 'VALIDATION_ERROR');
    const change = (key: string) =>
      call(t().app, 'PATCH', `/api/v1/services/${s.id}/members/${support.id}`, { key, body: { role: 'emperor' } });
    expectError(await change(stranger.accountKey), 404, 'NOT_FOUND');
    expectError(await change(support.accountKey), 403, 'ROLE_FORBIDDEN');
  });
});
