import { AuditTable } from '../audit/AuditTable';
import { PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';

export default function AuditLogPage() {
  const serviceId = useServiceId();
  return (
    <>
      <PageHeader title="Audit log" />
      <AuditTable serviceId={serviceId} label="Audit log" />
    </>
  );
}
