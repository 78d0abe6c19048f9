import { Placeholder } from '../components/states';

// Filled in by the "dashboard-pages" helper.
export default function AuditLogPage() {
  return <Placeholder title="Audit log" />;
}
