import { describe, expect, it } from 'vitest';
import { describeActor, describeAudit } from '../../web/src/audit/describe.ts';
import { BOT_PERMISSIONS, checklist, inviteUrl, type ChatSetup, type ChatStatus } from '../../web/src/discord/steps.ts';

// The Discord page's checklist (contract §24.1) as pure logic: one sentence per missing step, in a seller's words.
const EMPTY: ChatSetup = { applicationId: null, publicKeySet: false, botTokenSet: false, guild: null, roleId: null, logChannelId: null };
const NOTHING: ChatStatus = {
  interactionsVerified: null,
  commandsSyncedAt: null,
  botInServer: false,
  canManageRoles: false,
  canPostIn: {},
  lastError: null,
};
const CHANNEL = '400000000000000005';

describe('the Discord checklist', () => {
  it('names every missing step with one sentence, and the role and log channel lines as optional until they are wanted', () => {
    const steps = checklist(EMPTY, NOTHING);
    expect(steps.map((s) => [s.label, s.done, Boolean(s.optional)])).toEqual([
      ['Application details saved', false, false],
      ['Interactions verified', false, false],
      ['Bot in the server', false, false],
      ['Server connected', false, false],
      ['Commands synced', false, false],
      ['Can manage roles', false, true],
      ['Can post in the log channel', false, true],
    ]);
    expect(steps[0]!.sentence).toBe(
      'Paste the application id, the public key and the bot token from the Discord developer portal into “Discord application” below and press Save application.',
    );
    for (const step of steps) {
      expect(step.sentence.split(/\. (?=[A-Z])/)).toHaveLength(1); // one sentence
      expect(step.sentence).not.toMatch(/chat[A-Z]|curl|guild/); // no internal field, no command line
    }
  });

  it('asks only for what is missing, and reads a set log channel from canPostIn', () => {
    const setup: ChatSetup = { ...EMPTY, applicationId: '400000000000000001', botTokenSet: true, logChannelId: CHANNEL };
    const steps = checklist(setup, { ...NOTHING, canPostIn: { [CHANNEL]: false } });
    expect(steps[0]!.sentence).toContain('Paste the public key from');
    const log = steps.find((s) => s.id === 'log')!;
    expect([log.done, Boolean(log.optional)]).toEqual([false, false]);
    expect(log.sentence).toMatch(/^In Discord, open the log channel’s Edit Channel → Permissions/);
    expect(checklist(setup, { ...NOTHING, canPostIn: { [CHANNEL]: true } }).find((s) => s.id === 'log')!.done).toBe(true);
    const roles = checklist({ ...setup, roleId: '400000000000000007' }, NOTHING).find((s) => s.id === 'roles')!;
    expect([roles.done, Boolean(roles.optional)]).toEqual([false, false]);
    expect(roles.sentence).toMatch(/drag it above the buyer role\.$/);
  });

  it('invites the bot with the commands scope and the permissions Keyward uses', () => {
    const url = new URL(inviteUrl('400000000000000001'));
    expect(url.searchParams.get('client_id')).toBe('400000000000000001');
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    // View Channels, Send Messages, Embed Links, Manage Roles.
    expect(BigInt(url.searchParams.get('permissions')!)).toBe((1n << 10n) | (1n << 11n) | (1n << 14n) | (1n << 28n));
    expect(BOT_PERMISSIONS).toBe(268454912);
  });
});

describe('the audit log of an action done from Discord', () => {
  const alice = { kind: 'discord', accountId: 'a-alice', username: 'alice' };
  it('names the member and Discord, and never lists the door as a changed field', () => {
    expect(
      describeAudit({ action: 'key.update', actor: alice, target: 'ABCDEFGHIJKLMNOP', details: { note: 'vip', via: 'discord' } }),
    ).toBe('Edited key ABCD…MNOP (note)');
    expect(describeActor(alice, 'a-owner')).toBe('by alice in Discord');
    expect(describeActor(alice, 'a-alice')).toBe('by you in Discord');
  });
});
