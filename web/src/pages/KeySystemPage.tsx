import { Placeholder } from '../components/states';

// Filled in by the "dashboard-pages" helper.
export default function KeySystemPage() {
  return <Placeholder title="Key system" />;
}
