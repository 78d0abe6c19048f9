/** A service's sections: the link names are part of contract §9 (browser tests find them by name). */
export const SECTIONS = [
  // Where a service opens (contract §15); not one of §9's names.
  { slug: 'overview', label: 'Overview' },
  { slug: 'keys', label: 'Keys' },
  { slug: 'keyless', label: 'Keyless' },
  { slug: 'blacklist', label: 'Blacklist' },
  { slug: 'scripts', label: 'Scripts' },
  { slug: 'key-system', label: 'Key system' },
  { slug: 'analytics', label: 'Analytics' },
  { slug: 'audit-log', label: 'Audit log' },
  { slug: 'settings', label: 'Settings' },
  { slug: 'api-access', label: 'API access' },
  // Not one of contract §9's names; the page for the URL shortener routes (contract: URL shortener).
  { slug: 'short-links', label: 'Short links' },
  { slug: 'products', label: 'Products' },
  { slug: 'variables', label: 'Variables' },
  { slug: 'event-endpoints', label: 'Event endpoints' },
] as const;

export type SectionSlug = (typeof SECTIONS)[number]['slug'];

export const sectionPath = (serviceId: string, slug: SectionSlug) => `/services/${encodeURIComponent(serviceId)}/${slug}`;
