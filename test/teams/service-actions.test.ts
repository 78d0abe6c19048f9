import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { call, seedService, type SeededAccount, type SeededService } from '../helpers/seed.ts';
import { addMember } from './team-helpers.ts';

// GET /services and GET /services/:id give each service the caller's `role` and `actions` (what that role may do), so
// the dashboard hides what a role cannot use (contract §21, §25). The expected rows are contract §17's table written
// out here by hand, independently of src/modules/services/roles.ts: a drift of that table from the contract fails.
const t = useTestApp();

type Who = 'owner' | 'manager' | 'support' | 'reseller';
const CONTRACT_TABLE: Record<Who, string[]> = {
  owner: [
    'keys.read',
    'keys.insights',
    'keys.generate',
    'keys.support',
    'keys.policy',
    'keys.manage',
    'keys.delete',
    'lists.manage',
    'service.configure',
    'service.own',
  ],
  manager: [
    'keys.read',
    'keys.insights',
    'keys.generate',
    'keys.support',
    'keys.policy',
    'keys.manage',
    'keys.delete',
    'lists.manage',
    'service.configure',
  ],
  support: ['keys.read', 'keys.insights', 'keys.support', 'lists.manage'],
  // §25: a reseller edits a key's HWIDs, HWID check, premium and devices at once within its key policy.
  reseller: ['keys.read', 'keys.generate', 'keys.support', 'keys.policy', 'keys.delete'],
};

let s: SeededService;
let other: SeededService;
const people = {} as Record<Who, SeededAccount>;

beforeAll(async () => {
  const { app, ctx } = t();
  s = await seedService(ctx);
  other = await seedService(ctx);
  people.owner = s.account;
  people.manager = await addMember(app, ctx, s, 'manager');
  people.support = await addMember(app, ctx, s, 'support');
  people.reseller = await addMember(app, ctx, s, 'reseller', { keysLeft: 5 });
});

describe('the caller’s role and actions on each service', () => {
  for (const who of Object.keys(CONTRACT_TABLE) as Who[]) {
    it(`${who}: GET /services and GET /services/:id carry exactly its row of the role table`, async () => {
      const list = await call(t().app, 'GET', '/api/v1/services', { key: people[who].accountKey });
      expect(list.status).toBe(200);
      const mine = list.body.data.services.filter((x: { id: string }) => x.id === s.id);
      expect(mine).toHaveLength(1);
      expect(mine[0].role).toBe(who);
      expect([...mine[0].actions].sort()).toEqual([...CONTRACT_TABLE[who]].sort());
      // Another account's service is not listed at all.
      expect(list.body.data.services.some((x: { id: string }) => x.id === other.id)).toBe(false);

      const one = await call(t().app, 'GET', `/api/v1/services/${s.id}`, { key: people[who].accountKey });
      expect(one.status).toBe(200);
      expect(one.body.data.role).toBe(who);
      expect([...one.body.data.actions].sort()).toEqual([...CONTRACT_TABLE[who]].sort());
    });
  }

  it('a member’s changed role changes its actions on the next read', async () => {
    const { app, ctx } = t();
    const member = await addMember(app, ctx, s, 'support');
    const patched = await call(app, 'PATCH', `/api/v1/services/${s.id}/members/${member.id}`, {
      key: s.account.accountKey,
      body: { role: 'manager' },
    });
    expect(patched.status).toBe(200);
    const one = await call(app, 'GET', `/api/v1/services/${s.id}`, { key: member.accountKey });
    expect(one.body.data.role).toBe('manager');
    expect([...one.body.data.actions].sort()).toEqual([...CONTRACT_TABLE.manager].sort());
  });

  it('a stranger gets 404 for the single service, not an empty row', async () => {
    const one = await call(t().app, 'GET', `/api/v1/services/${s.id}`, { key: other.account.accountKey });
    expect(one.status).toBe(404);
  });
});
