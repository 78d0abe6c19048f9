import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, setCsrfToken, unwrap } from '../api/client';
import type { ApiData } from '../api/types';

export type Account = ApiData<'/api/v1/auth/session'>['account'];

export const SESSION_KEY = ['session'] as const;

/** The signed-in account, or null when there is no session (the 401 is an answer here, not an error). */
export async function fetchSession(): Promise<{ account: Account; csrfToken: string } | null> {
  try {
    const session = unwrap(await api.GET('/api/v1/auth/session'));
    setCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000, retry: false });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return async () => {
    await api.POST('/api/v1/auth/logout').catch(() => undefined);
    setCsrfToken(null);
    queryClient.clear();
    queryClient.setQueryData(SESSION_KEY, null);
  };
}
