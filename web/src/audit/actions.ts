import type { paths } from '../api/schema';

export type AuditAction = NonNullable<NonNullable<paths['/api/v1/keys/api/audit']['get']['parameters']['query']>['action']>;

/**
 * The audit filter's choices in words: a seller cannot be asked to type `keySystem.update`. A Record over the API's
 * own list, so a new action on the server fails the web typecheck until it has words here.
 */
export const LABELS: Record<AuditAction, string> = {
  'key.generate': 'Keys generated',
  'key.update': 'Key edited',
  'key.delete': 'Key deleted',
  'key.extend': 'Key extended',
  'key.resetHwid': 'HWID reset',
  'keys.bulk': 'Several keys changed at once',
  'keys.import': 'Keys imported',
  'keys.compensate': 'Keys compensated (time added)',
  'keyless.add': 'Keyless HWID added',
  'keyless.delete': 'Keyless HWID removed',
  'blacklist.add': 'HWID blacklisted',
  'blacklist.delete': 'HWID taken off the blacklist',
  'settings.update': 'Settings changed',
  'chat.connect': 'Discord server connected',
  'chat.disconnect': 'Discord server disconnected',
  'chat.commandsSync': 'Discord commands synced',
  'chat.panel': 'Discord buyer panel posted',
  'script.create': 'Script uploaded',
  'script.update': 'Script changed',
  'script.delete': 'Script deleted',
  'script.restore': 'Script version restored',
  'keySystem.update': 'Key system changed',
  'signingKey.rotate': 'Signing key replaced',
  'product.create': 'Product created',
  'product.update': 'Product changed',
  'product.delete': 'Product deleted',
  'shop.update': 'Shop secrets changed',
  'order.delivered': 'Shop order delivered',
  'variables.update': 'Variables changed',
  'eventEndpoint.create': 'Event endpoint added',
  'eventEndpoint.delete': 'Event endpoint removed',
  // Teams (contract §17).
  'invite.create': 'Team member invited',
  'invite.delete': 'Invite withdrawn',
  'member.join': 'Team member joined',
  'member.update': 'Team member’s role or quota changed',
  'member.remove': 'Team member removed',
  'member.leave': 'Team member left',
  'service.create': 'Service created',
  'service.update': 'Service changed',
  'service.delete': 'Service deleted',
  'serviceKey.regenerate': 'Service key regenerated',
  'accountKey.regenerate': 'Account key regenerated',
  'permissions.update': 'API permissions changed',
  'ipAllowlist.update': 'IP allowlist changed',
  login: 'Signed in',
  'login.failed': 'Sign-in failed',
  'twoFactor.enable': 'Two-factor turned on',
  'twoFactor.disable': 'Two-factor turned off',
  'password.reset': 'Password reset (command line)',
};

/** The filter's options, alphabetical by their words, after "Any action". */
export const AUDIT_ACTION_OPTIONS = [
  { value: '', label: 'Any action' },
  ...Object.entries(LABELS)
    .map(([value, label]) => ({ value, label }))
    .sort((a, b) => a.label.localeCompare(b.label)),
];
