import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { setUnauthorizedHandler } from '../api/client';
import { ErrorState, Loading } from '../components/states';
import { SESSION_KEY, useSession } from './session';

/** Pages behind sign-in; an expired session anywhere (a 401 from any call) comes back here. */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  useEffect(() => {
    setUnauthorizedHandler(() => {
      queryClient.setQueryData(SESSION_KEY, null);
      const here = window.location.pathname + window.location.search;
      navigate(`/login?next=${encodeURIComponent(here)}`, { replace: true });
    });
  }, [navigate, queryClient]);

  if (session.isPending) return <Loading label="Checking your session" />;
  if (session.isError) return <ErrorState error={session.error} retry={() => session.refetch()} />;
  if (!session.data) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <Outlet />;
}
