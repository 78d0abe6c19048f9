/**
 * Where to go after sign-in: only a path on this site, never another origin (`//evil.example`, `/\evil.example`,
 * `https://…`) and never back to the sign-in page itself; anything else goes to the services list.
 */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || next.startsWith('/login')) return '/services';
  return next;
}
