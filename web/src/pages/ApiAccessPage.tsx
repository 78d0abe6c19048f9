import { Placeholder } from '../components/states';

// Filled in by the "dashboard-pages" helper.
export default function ApiAccessPage() {
  return <Placeholder title="API access" />;
}
