import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import type { ApiData, ItemOf } from '../api/types';

export type Service = ItemOf<ApiData<'/api/v1/services'>['services']>;

export const SERVICES_KEY = ['services'] as const;

export function useServices() {
  return useQuery({
    queryKey: SERVICES_KEY,
    queryFn: async () => unwrap(await api.GET('/api/v1/services')).services as Service[],
  });
}
