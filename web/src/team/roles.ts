/** The roles an owner gives (contract §17), named as the Team page shows them. */
export type Role = 'manager' | 'support' | 'reseller';

export const ROLE_NAMES: Record<Role, string> = { support: 'Support', manager: 'Manager', reseller: 'Reseller' };

/** What each role does, in the words the invite form and the invite page use. */
export const ROLE_MEANS: Record<Role, string> = {
  support: 'answers buyers: reset HWIDs, ban, notes',
  manager: 'everything but the service key and the team',
  reseller: 'generates keys within a quota',
};
