/**
 * A service's sections: the link names are part of contract §9 (browser tests find them by name). `action` is what the
 * caller's role must allow for the section to be shown at all (contract §17, §21: hidden, not greyed out).
 */
export const SECTIONS = [
  // Where a service opens (contract §15); not one of §9's names. It reads the outbox and key system too.
  { slug: 'overview', label: 'Overview', action: 'service.configure' },
  { slug: 'keys', label: 'Keys', action: 'keys.read' },
  { slug: 'keyless', label: 'Keyless', action: 'lists.manage' },
  { slug: 'blacklist', label: 'Blacklist', action: 'lists.manage' },
  { slug: 'scripts', label: 'Scripts', action: 'service.configure' },
  { slug: 'key-system', label: 'Key system', action: 'service.configure' },
  { slug: 'analytics', label: 'Analytics', action: 'keys.insights' },
  { slug: 'audit-log', label: 'Audit log', action: 'keys.insights' },
  { slug: 'settings', label: 'Settings', action: 'service.configure' },
  // Contract §24: the application, server, checklist, buyer panel, log channel and buyer role; not one of §9's names.
  { slug: 'discord', label: 'Discord', action: 'service.configure' },
  { slug: 'api-access', label: 'API access', action: 'service.own' },
  // Not one of contract §9's names; the page for the URL shortener routes (contract: URL shortener).
  { slug: 'short-links', label: 'Short links', action: 'service.configure' },
  { slug: 'products', label: 'Products', action: 'service.configure' },
  { slug: 'variables', label: 'Variables', action: 'service.configure' },
  { slug: 'event-endpoints', label: 'Event endpoints', action: 'service.configure' },
  // Contract §21: invites and members, the owner's.
  { slug: 'team', label: 'Team', action: 'service.own' },
] as const;

// (No import of services/access.ts here: scripts/screenshots.ts reads this file from the server's side.)
type SectionAction = (typeof SECTIONS)[number]['action'];

/** The sections this caller may use (services/access.ts `can`); none until its access is known. */
export const visibleSections = (access: { can: (action: SectionAction) => boolean }) =>
  SECTIONS.filter((section) => access.can(section.action));

export type SectionSlug = (typeof SECTIONS)[number]['slug'];

export const sectionPath = (serviceId: string, slug: SectionSlug) => `/services/${encodeURIComponent(serviceId)}/${slug}`;
