import { useQuery } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import type { ApiData } from '../api/types';

/**
 * What a reseller's Generate may ask for (contract §17 quota, §25 key policy), read from GET /keys/api/reseller. The
 * dialog offers only this; the server still refuses anything beyond it (403 QUOTA_EXCEEDED).
 */
export interface ResellerPolicy {
  keysLeft: number;
  /** null: keys of any length. */
  maxDays: number | null;
  allowLifetime: boolean;
  /** null: the server gave no cap (a server from before §25's key policy). */
  maxHwids: number | null;
  /** null (here and for allowPremium): the server did not say, so nothing is limited here. */
  allowNoHwidValidation: boolean | null;
  allowPremium: boolean | null;
  /** null: the reseller chooses freely (0 = no limit included). */
  maxSessions: number | null;
}

type PolicyFields = {
  maxHwids?: number | null;
  allowNoHwidValidation?: boolean;
  allowPremium?: boolean;
  maxSessions?: number | null;
};
/** A quota as any answer carries it: GET /keys/api/reseller, a member, an invite (contract §17, §25). */
export type QuotaLike = Pick<ApiData<'/api/v1/keys/api/reseller'>, 'keysLeft' | 'maxDays' | 'allowLifetime'> & PolicyFields;

/**
 * The policy from the server's answer. A field the answer lacks (a server from before §25) limits nothing here, so
 * the dialog never hides what that server would accept.
 */
export function policyOf(quota: QuotaLike): ResellerPolicy {
  return {
    keysLeft: quota.keysLeft,
    maxDays: quota.maxDays,
    allowLifetime: quota.allowLifetime,
    maxHwids: quota.maxHwids ?? null,
    allowNoHwidValidation: quota.allowNoHwidValidation ?? null,
    allowPremium: quota.allowPremium ?? null,
    maxSessions: quota.maxSessions ?? null,
  };
}

/** The caller's quota and key policy on the service when it is a reseller (`enabled`), else null. */
export function useResellerPolicy(serviceId: string, enabled: boolean): ResellerPolicy | null {
  const status = useQuery({
    queryKey: ['reseller', serviceId],
    enabled,
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/reseller', { headers: serviceHeaders(serviceId) })),
  });
  return enabled && status.data ? policyOf(status.data) : null;
}

/** The one sentence at 0 keys left (contract §25): what is short and what to do. */
export const NO_KEYS_LEFT = 'No keys left — ask the service owner for more';

/** The policy's terms in words, for the reseller beside Generate and for the owner on the Team page and invite. */
export function describePolicy(p: Omit<ResellerPolicy, 'keysLeft'>): string[] {
  return [
    p.maxDays === null ? 'keys of any length' : `keys up to ${p.maxDays} day${p.maxDays === 1 ? '' : 's'}`,
    p.allowLifetime ? 'lifetime keys allowed' : 'no lifetime keys',
    ...(p.maxHwids === null ? [] : [`up to ${p.maxHwids} HWID${p.maxHwids === 1 ? '' : 's'} per key`]),
    ...(p.maxSessions === null ? [] : [`up to ${p.maxSessions} device${p.maxSessions === 1 ? '' : 's'} at once`]),
    ...(p.allowNoHwidValidation === null ? [] : [p.allowNoHwidValidation ? 'may turn off the HWID check' : 'HWID check always on']),
    ...(p.allowPremium === null ? [] : [p.allowPremium ? 'may make premium keys' : 'no premium keys']),
  ];
}
