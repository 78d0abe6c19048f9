import { describe, expect, it } from 'vitest';
import { describeActor } from '../../web/src/audit/describe.ts';

// Contract §17: audit entries name the acting member; the dashboard's audit log says who, in words.
describe('the audit log names a team member', () => {
  it('by username for another account, as before for the owner and for keys', () => {
    const alice = { accountId: 'a-1', username: 'alice' };
    expect(describeActor({ kind: 'session', ...alice }, 'owner-1')).toBe('by alice in the dashboard');
    expect(describeActor({ kind: 'account-key', ...alice }, 'owner-1')).toBe('by alice through the API (account key)');
    expect(describeActor({ kind: 'session', accountId: 'owner-1', username: 'me' }, 'owner-1')).toBe('by you in the dashboard');
    expect(describeActor({ kind: 'service-key', accountId: 'owner-1', username: null }, 'owner-1')).toBe('through the API (service key)');
  });
});
