import { describe, expect, it } from 'vitest';
import { describeActor, describeAudit } from '../../web/src/audit/describe.ts';
import { describeKeyExpiry } from '../../web/src/keys/types.ts';

/** Contract §22: every audit action in words, and afterRedeem keys never "Lifetime" (the pure parts of the pages). */
const system = { kind: 'system', accountId: null };
const say = (action: string, details: Record<string, unknown>, target: string | null = null, labels: Record<string, string> = {}) =>
  describeAudit({ action, actor: system, target, details }, labels);

describe('the audit log in words', () => {
  it('names the order, the shop and the product of a delivery', () => {
    expect(
      say('order.delivered', { orderId: 'order-1001', quantity: 2, provider: 'sellix', productId: 'p1', productName: 'Monthly' }),
    ).toBe('Delivered 2 keys for Sellix order order-1001 of the product Monthly');
  });
  it('names products, endpoints and scripts, never their ids', () => {
    expect(say('product.delete', { name: 'Monthly' }, 'b341e138-0000')).toBe('Deleted the product Monthly');
    expect(say('product.update', { name: 'Yearly', previousName: 'Monthly' }, 'b341e138-0000')).toBe(
      'Renamed the product Monthly to Yearly',
    );
    expect(say('eventEndpoint.delete', { id: 'e1', url: 'https://hooks.example.com/k' })).toBe(
      'Removed the event endpoint https://hooks.example.com/k',
    );
    expect(say('script.restore', { name: 'loader', version: 1, previousVersion: 3 }, 'b341e138-0000')).toBe(
      'Restored version 1 of the script loader (it was on version 3)',
    );
    expect(say('script.update', { name: 'loader', enabled: true, disabledMessage: null }, 'b341e138-0000')).toBe(
      'Changed the script loader (switched on)',
    );
  });
  it('lists only the fields an edit changed, without its type', () => {
    expect(say('key.update', { type: 'generated', note: 'vip' }, 'ABCDEFGHIJKLMNOP')).toBe('Edited key ABCD…MNOP (note)');
  });
  it('an action without a sentence yet reads as its label, or in words, never its raw name', () => {
    expect(say('member.invite', {}, null, { 'member.invite': 'Member invited' })).toBe('Member invited');
    const fallback = say('member.roleChange', {});
    expect(fallback).not.toContain('member.roleChange');
    expect(fallback).toBe('Made a change (member role change)');
    expect(say('password.reset', {})).toBe('Reset the password from the command line (every session was signed out)');
  });
});

describe('a key whose time starts at redemption', () => {
  it('reads N days from redemption, not Lifetime', () => {
    expect(describeKeyExpiry({ type: 'generated', expiresAt: null, durationDays: 30 })).toBe('30 days from redemption');
    expect(describeKeyExpiry({ type: 'generated', expiresAt: null, durationDays: 1 })).toBe('1 day from redemption');
    expect(describeKeyExpiry({ type: 'generated', expiresAt: null, durationDays: null })).toBe('Lifetime');
    // Contract §23: bound before its first use, its time starts at its first validation.
    expect(describeKeyExpiry({ type: 'active', expiresAt: null, durationDays: 7 })).toBe('7 days from first use');
    expect(describeKeyExpiry({ type: 'active', expiresAt: null, durationDays: null })).toBe('Lifetime');
  });
});

describe('the audit log in words, fifth round (contract §27)', () => {
  it('names the heartbeat period and devices at once, never their field names', () => {
    expect(say('settings.update', { sessionHeartbeatSeconds: 60 })).toBe('Changed the settings (heartbeat period)');
    expect(say('key.update', { type: 'active', maxSessions: 2 }, 'ABCDEFGHIJKLMNOP')).toBe('Edited key ABCD…MNOP (devices at once)');
  });
  it('shows a ban with its reason', () => {
    expect(say('key.update', { type: 'active', status: 'banned', banReason: 'chargeback', banExpiresAt: null }, 'ABCDEFGHIJKLMNOP')).toBe(
      'Banned key ABCD…MNOP: chargeback',
    );
  });
  it('counts what an import brought in', () => {
    expect(say('keys.import', { format: 'luarmor', imported: { active: 3, generated: 1 }, skipped: 2 })).toBe(
      'Imported 4 keys (3 in use, 1 not used yet); 2 keys already there, skipped',
    );
    expect(say('keys.import', { format: 'luarmor', imported: { active: 1, generated: 0 }, skipped: 0 })).toBe('Imported 1 key (1 in use)');
  });
  it('says who joined the team and which role an invite is for', () => {
    expect(say('invite.create', { role: 'manager', quota: null })).toBe('Invited a manager');
    expect(say('member.join', { username: 'alice', role: 'support' }, 'acc-1')).toBe('alice joined the team as a support member');
  });
  it('credits an unban by link to the link, not to a buyer', () => {
    const entry = {
      action: 'key.update',
      actor: { kind: 'end-user', accountId: null },
      target: 'K',
      details: { status: 'active', via: 'unban-link' },
    };
    expect(describeActor(entry.actor, null, entry.details)).toBe('through the unban link (Luarmor API)');
    expect(describeAudit(entry)).toBe('Lifted the ban of key K (unban link)');
  });
});
