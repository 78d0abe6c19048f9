import { Anchor, Code, List, Text } from '@mantine/core';
import { Link } from 'react-router';
import { Section } from '../components/Section';
import { useServices } from '../services/queries';

/**
 * "Switching from Luarmor" (contract §21): what a seller pastes into a bot, deploy action or panel written for
 * api.luarmor.net, and the way to bring their users across.
 */
export function LuarmorSwitchSection({ serviceId, serviceKey }: { serviceId: string; serviceKey: string | null }) {
  const services = useServices();
  const service = services.data?.find((s) => s.id === serviceId);
  const base = `${window.location.origin}/luarmor`;
  return (
    <Section title="Switching from Luarmor">
      <Text size="sm" mb="xs">
        A Discord bot, deploy action or panel made for Luarmor works here unchanged: give it these three values instead of Luarmor&apos;s.
      </Text>
      <List size="sm" spacing="xs">
        <List.Item>
          Base address (instead of https://api.luarmor.net): <Code aria-label="Luarmor base address">{base}</Code>
        </List.Item>
        <List.Item>
          API key: {serviceKey ? <Code aria-label="Luarmor API key">{serviceKey}</Code> : 'the service key above (press Reveal to see it)'}
        </List.Item>
        <List.Item>
          Project id: <Code aria-label="Luarmor project id">{service?.identifier ?? serviceId}</Code>
        </List.Item>
      </List>
      <Text size="sm" mt="sm">
        Bring your users across first: export them from Luarmor, then{' '}
        <Anchor component={Link} to={`/services/${serviceId}/keys?import=1`}>
          import your Luarmor users
        </Anchor>{' '}
        on the Keys page. Buyers keep their keys, devices and Discord links.
      </Text>
    </Section>
  );
}
