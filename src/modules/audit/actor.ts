import type { FastifyRequest } from 'fastify';
import type { Actor } from './audit.repository.ts';

/**
 * The route side of auditing: who the request's principal is, as the plain value domain calls take.
 * A public route (no principal) acts for an end user. A vault token acts for its account key.
 */
export function actorOf(request: FastifyRequest): Actor {
  const principal = request.principal;
  if (!principal) return { kind: 'end-user', accountId: null, ip: request.ip };
  const kind = principal.kind === 'vault-token' ? 'account-key' : principal.kind;
  return { kind, accountId: principal.kind === 'service-key' ? principal.accountId : principal.account.id, ip: request.ip };
}
