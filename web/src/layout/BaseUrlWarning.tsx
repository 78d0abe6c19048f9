import { Alert, Code, Text } from '@mantine/core';
import { mismatchedBaseUrl } from '../lib/baseUrl';

/** BASE_URL as the server put it into the page (src/modules/dashboard/dashboard.routes.ts), or null. */
function serverBaseUrl(): string | null {
  const content = document.querySelector<HTMLMetaElement>('meta[name="keyward-base-url"]')?.content;
  return content ? content : null;
}

/**
 * Contract §11: a seller who reaches the dashboard at an address other than BASE_URL's (often: BASE_URL left at
 * http://localhost on a server) would hand out loadstrings and links that buyers cannot open.
 */
export function BaseUrlWarning() {
  const baseUrl = mismatchedBaseUrl(serverBaseUrl(), window.location.origin);
  if (!baseUrl) return null;
  return (
    <Alert role="status" color="yellow" title="BASE_URL is not this address" mb="md">
      <Text size="sm">
        This dashboard is open at <Code>{window.location.origin}</Code>, but the server&apos;s BASE_URL is <Code>{baseUrl}</Code>.
        Loadstrings, get-key pages and links point at BASE_URL: if buyers cannot reach it, set BASE_URL to the address they use (for example{' '}
        <Code>BASE_URL=https://keys.example.com</Code>) and restart Keyward.
      </Text>
    </Alert>
  );
}
