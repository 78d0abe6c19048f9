import { Placeholder } from '../components/states';

export default function KeysPage() {
  return <Placeholder title="Keys" />;
}
