import { Placeholder } from '../components/states';

// Filled in by the "dashboard-pages" helper.
export default function AnalyticsPage() {
  return <Placeholder title="Analytics" />;
}
