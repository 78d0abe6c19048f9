import { useParams } from 'react-router';

/** The service of the current page (`/services/:serviceId/…`); pages under it always have one. */
export function useServiceId(): string {
  const { serviceId } = useParams();
  if (!serviceId) throw new Error('useServiceId is only for pages under /services/:serviceId');
  return serviceId;
}
