import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

export interface Service {
  id: string;
  identifier: string;
  name: string;
  createdAt: string;
}

export const SERVICES_KEY = ['services'] as const;

export function useServices() {
  return useQuery({
    queryKey: SERVICES_KEY,
    queryFn: async () => unwrap(await api.GET('/api/v1/services')).services as Service[],
  });
}
