import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import type { ApiData } from '../api/types';
import { notifySuccess } from '../components/notify';

export type ServiceInfo = ApiData<'/api/v1/keys/api/service/info'>;
export type Settings = ServiceInfo['settings'];
export type SettingsChange = Partial<Omit<Settings, 'chat'>>;

/** The service's settings (shared with the Settings page: one query key, so a save here shows there). */
export const useServiceInfo = (serviceId: string, enabled = true) =>
  useQuery({
    enabled,
    queryKey: ['service-info', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/service/info', { headers: serviceHeaders(serviceId) })),
  });

/** What Discord says now (contract §24.1): read on open, on focus, and after every change on this page. */
export const useChatStatus = (serviceId: string) =>
  useQuery({
    queryKey: ['chat-status', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/chat/status', { headers: serviceHeaders(serviceId) })),
    retry: false,
    // The seller comes back from Discord's developer portal in another tab: the checklist reads Discord again then.
    staleTime: 0,
    refetchOnWindowFocus: true,
  });

/** Everything on this page changes what Discord answers: each save reads the settings and the checklist again. */
export function useRefreshDiscord(serviceId: string) {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: ['service-info', serviceId] });
    void queryClient.invalidateQueries({ queryKey: ['chat-status', serviceId] });
    void queryClient.invalidateQueries({ queryKey: ['discord-role', serviceId] });
  };
}

export function useSaveSettings(serviceId: string, saved: string, after?: () => void) {
  const refresh = useRefreshDiscord(serviceId);
  return useMutation({
    mutationFn: async (body: SettingsChange) =>
      unwrap(await api.PUT('/api/v1/keys/api/settings', { headers: serviceHeaders(serviceId), body })),
    onSuccess: () => {
      refresh();
      after?.();
      notifySuccess(saved);
    },
  });
}

export function useSyncCommands(serviceId: string) {
  const refresh = useRefreshDiscord(serviceId);
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/keys/api/chat/commands/sync', { headers: serviceHeaders(serviceId), body: {} })),
    // No toast: the answer is written in the checklist, whose buttons a toast would cover.
    onSuccess: refresh,
  });
}
