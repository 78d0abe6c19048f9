import { useServices, type Service } from './queries';

/**
 * What the signed-in account may do on a service (contract §17), as the server's role table says: GET /services
 * lists each service with the caller's `role` and its `actions`. The dashboard shows only what those allow (contract
 * §21: hidden, not greyed out); the server refuses the rest anyway.
 */
export type ServiceAction = Service['actions'][number];

export interface ServiceAccess {
  /** Still loading: nothing is shown yet. */
  known: boolean;
  role: Service['role'] | null;
  can: (action: ServiceAction) => boolean;
}

export function accessOf(service: Service | undefined): ServiceAccess {
  const actions = new Set(service?.actions ?? []);
  return { known: service !== undefined, role: service?.role ?? null, can: (action) => actions.has(action) };
}

/** The access of the signed-in account on `serviceId` (its id or identifier). */
export function useServiceAccess(serviceId: string | undefined): ServiceAccess {
  const services = useServices();
  return accessOf(services.data?.find((s) => s.id === serviceId || s.identifier === serviceId));
}
