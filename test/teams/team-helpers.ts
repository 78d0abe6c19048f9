import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { AppContext } from '../../src/context.ts';
import { call, seedAccount, type SeededAccount, type SeededService } from '../helpers/seed.ts';

export type Role = 'manager' | 'support' | 'reseller';
export interface Quota {
  keysLeft?: number;
  maxDays?: number | null;
  allowLifetime?: boolean;
}

/** Invites a new account into the service with `role` (through the API, as a seller would) and accepts it. */
export async function addMember(app: App, ctx: AppContext, s: SeededService, role: Role, quota?: Quota): Promise<SeededAccount> {
  const member = await seedAccount(ctx);
  const invite = await call(app, 'POST', `/api/v1/services/${s.id}/invites`, {
    key: s.account.accountKey,
    body: { role, ...(quota && { quota }) },
  });
  expect(invite.status, JSON.stringify(invite.body)).toBe(201);
  const accepted = await call(app, 'POST', `/api/v1/invites/${invite.body.data.code}/accept`, { key: member.accountKey });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return member;
}

/** A service route called with an account key and X-Service-Id, as a member does. */
export const asMember = (
  app: App,
  who: SeededAccount,
  s: SeededService,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
) => call(app, method, `/api/v1${path}`, { key: who.accountKey, headers: { 'x-service-id': s.id }, body });
