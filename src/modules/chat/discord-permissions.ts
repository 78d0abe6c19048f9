/**
 * Discord's permission arithmetic (its documented algorithm): a member's permissions in the guild are the OR of
 * @everyone's and its roles'; in a channel, the overwrites of @everyone, then its roles, then the member apply in that
 * order. Administrator grants everything.
 */
export const PERMISSION = {
  ADMINISTRATOR: 1n << 3n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  EMBED_LINKS: 1n << 14n,
  MANAGE_ROLES: 1n << 28n,
} as const;

const ALL = (1n << 64n) - 1n;

const bits = (value: unknown): bigint => {
  try {
    return typeof value === 'string' || typeof value === 'number' ? BigInt(value) : 0n;
  } catch {
    return 0n;
  }
};

/** The member's permissions in the guild; @everyone's role has the guild's id. */
export function guildPermissions(
  guildId: string,
  memberRoles: readonly string[],
  roles: ReadonlyArray<{ id: string; permissions: string }>,
) {
  let permissions = 0n;
  for (const role of roles) if (role.id === guildId || memberRoles.includes(role.id)) permissions |= bits(role.permissions);
  return (permissions & PERMISSION.ADMINISTRATOR) !== 0n ? ALL : permissions;
}

interface Overwrite {
  id?: unknown;
  type?: unknown;
  allow?: unknown;
  deny?: unknown;
}

export function channelPermissions(
  base: bigint,
  guildId: string,
  memberId: string,
  memberRoles: readonly string[],
  overwrites: readonly Overwrite[],
): bigint {
  if ((base & PERMISSION.ADMINISTRATOR) !== 0n || base === ALL) return ALL;
  let permissions = base;
  const everyone = overwrites.find((o) => o.id === guildId);
  if (everyone) permissions = (permissions & ~bits(everyone.deny)) | bits(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of overwrites) {
    if (o.type === 0 && typeof o.id === 'string' && memberRoles.includes(o.id)) {
      allow |= bits(o.allow);
      deny |= bits(o.deny);
    }
  }
  permissions = (permissions & ~deny) | allow;
  const own = overwrites.find((o) => o.type === 1 && o.id === memberId);
  if (own) permissions = (permissions & ~bits(own.deny)) | bits(own.allow);
  return permissions;
}
