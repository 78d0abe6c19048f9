import type { ReactNode } from 'react';
import { Text } from '@mantine/core';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { accessOf } from '../services/access';
import { useServices } from '../services/queries';
import { useServiceId } from '../services/useServiceId';
import { SECTIONS, type SectionSlug } from './sections';

/**
 * A section's page, opened only when the caller's role allows it (contract §25): an address typed or bookmarked that
 * the role cannot use shows one sentence and nothing of the page, so no owner button and no request the server would
 * refuse (which used to show "Could not load this" with a Try again that could never succeed). The action comes from
 * the sections list, the answer from the role's actions as GET /services gives them.
 */
export function SectionGate({ slug, children }: { slug: SectionSlug; children: ReactNode }) {
  const serviceId = useServiceId();
  const services = useServices();
  const section = SECTIONS.find((s) => s.slug === slug)!;
  if (services.isPending) return <Loading label="Loading the service" />;
  if (services.isError) return <ErrorState error={services.error} retry={() => void services.refetch()} />;
  const service = services.data.find((s) => s.id === serviceId || s.identifier === serviceId);
  if (!service) return <Empty title="Service not found">You are not a member of this service, or it no longer exists.</Empty>;
  const access = accessOf(service);
  if (!access.can(section.action)) {
    return (
      <>
        <PageHeader title={section.label} />
        <Text role="status">Your role on this service ({access.role}) does not open this page.</Text>
      </>
    );
  }
  return children;
}
