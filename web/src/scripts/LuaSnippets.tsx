import { Anchor, Badge, Code, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, serviceHeaders, unwrap } from '../api/client';
import { CopyAction } from '../components/CopyAction';
import { Section } from '../components/Section';
import { ErrorState, Loading } from '../components/states';
import { sectionPath } from '../layout/sections';
import type { Script } from './types';

/** The relay's per-key limit (contract §13.3; src/modules/relay RELAY_PER_MINUTE). */
const RELAY_PER_MINUTE = 10;

/** The loadstring carries the server's public base URL; the Lua library and the relay live next to it. */
const baseOf = (loadstring: string) => /HttpGet\("([^"]+)\/api\/v1\/vss\/loader\//.exec(loadstring)?.[1] ?? window.location.origin;

const libraryLine = (base: string, scriptId: string) =>
  `local api = loadstring(game:HttpGet("${base}/api/v1/lua/library.lua"))()
api.script_id = "${scriptId}"`;

/**
 * What a script author pastes: the Lua library's key check, and the webhook relay (contract §13.3), both built on the
 * first listed script (the relay finds the service through it) and on the server's public address.
 */
export function LuaSnippets({ serviceId, example }: { serviceId: string; example: Script | undefined }) {
  const base = example ? baseOf(example.loadstring) : window.location.origin;
  const head = libraryLine(base, example?.id ?? '<script id>');
  const librarySnippet = `${head}
local result = api.check_key(script_key)
if result.code == "KEY_VALID" or result.code == "KEYLESS" then
  api.load_script()
else
  warn(result.message)
end`;
  return (
    <>
      <Section title="Lua library">
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            Check a key yourself before loading (Luarmor’s convention): the library never raises for a refused key.
          </Text>
          <Code block aria-label="Lua library snippet">
            {librarySnippet}
          </Code>
          <CopyAction value={librarySnippet} label="Copy snippet" size="xs" w="fit-content" copiedMessage="Snippet copied" />
        </Stack>
      </Section>
      <RelaySection serviceId={serviceId} base={base} head={head} />
    </>
  );
}

function RelaySection({ serviceId, base, head }: { serviceId: string; base: string; head: string }) {
  const info = useQuery({
    queryKey: ['service-info', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/keys/api/service/info', { headers: serviceHeaders(serviceId) })),
  });
  // Not named "Settings": that name belongs to the section link (contract §9), and two links by it are ambiguous.
  const settingsLink = (
    <Anchor component={Link} to={sectionPath(serviceId, 'settings')}>
      the webhook set-up
    </Anchor>
  );
  let body;
  if (info.isPending) body = <Loading label="Loading the webhook relay" />;
  else if (info.isError) body = <ErrorState error={info.error} retry={() => void info.refetch()} />;
  else {
    const on = info.data.settings.webhookEnabled && info.data.settings.webhookUrl !== null;
    const address = `${base}/api/v1/public/relay/${info.data.identifier}`;
    const snippet = `${head}
-- After the key check: posts to your Discord webhook, which the script never sees.
local ok, problem = api.send_webhook("Someone started the script")
if not ok then warn("Message not sent: " .. tostring(problem)) end`;
    body = (
      <Stack gap="sm">
        <Group gap="xs">
          <Badge color={on ? 'green' : 'gray'}>{on ? 'On' : 'Off'}</Badge>
          <Text size="sm">
            {on ? (
              <>Scripts can post to your webhook now. To stop it, turn the webhook off in {settingsLink}.</>
            ) : (
              <>
                The relay posts to your service’s Discord webhook, which is not set up or is turned off. Add it and turn it on in{' '}
                {settingsLink} (Settings, Webhook).
              </>
            )}
          </Text>
        </Group>
        <Text size="sm">
          Your script sends a message through Keyward, which passes it on to your webhook: the webhook’s address never leaves your server,
          so nobody can copy it out of the script to spam or delete it. Only buyers whose key is valid right now can send; each key may send
          at most {RELAY_PER_MINUTE} messages a minute, and @everyone or role mentions are shown as plain text, never pinged.
        </Text>
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            Address
          </Text>
          <Group gap="xs" wrap="wrap" maw="100%">
            <Code aria-label="Relay address" style={{ overflowWrap: 'anywhere' }}>
              {address}
            </Code>
            <CopyAction value={address} label="Copy address" size="xs" copiedMessage="Relay address copied" />
          </Group>
        </Stack>
        <Code block aria-label="Webhook relay snippet">
          {snippet}
        </Code>
        <CopyAction value={snippet} label="Copy relay snippet" size="xs" w="fit-content" copiedMessage="Relay snippet copied" />
      </Stack>
    );
  }
  return <Section title="Webhook relay">{body}</Section>;
}
