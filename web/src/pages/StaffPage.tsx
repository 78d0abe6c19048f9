import { Placeholder } from '../components/states';

// Filled in by the "dashboard-pages" helper.
export default function StaffPage() {
  return <Placeholder title="Staff" />;
}
