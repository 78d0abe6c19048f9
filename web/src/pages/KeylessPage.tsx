import { Placeholder } from '../components/states';

// Filled in by the "dashboard-pages" helper.
export default function KeylessPage() {
  return <Placeholder title="Keyless" />;
}
