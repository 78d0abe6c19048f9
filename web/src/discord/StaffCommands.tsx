import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { Section } from '../components/Section';

/** The staff commands of contract §24.3 and who may use them (§17's roles), so the owner knows what to tell the team. */
const COMMANDS: { name: string; who: string; does: string }[] = [
  { name: '/whitelist', who: 'Owner, managers, resellers', does: 'Makes a key for a Discord user, links it and gives the buyer role.' },
  { name: '/blacklist', who: 'Owner, managers, support', does: 'Bans every key of a Discord user, with a reason and an end.' },
  { name: '/unblacklist', who: 'Owner, managers, support', does: 'Makes that user’s keys active again.' },
  { name: '/user-info', who: 'Everyone on the team (resellers: their own keys)', does: 'Shows a user’s keys, devices and bans.' },
  { name: '/force-resethwid', who: 'Owner, managers, support', does: 'Resets a user’s HWIDs without the cooldown.' },
  { name: '/compensate', who: 'Owner, managers', does: 'Adds days to every key that has an end.' },
  { name: '/mass-whitelist', who: 'Owner, managers', does: 'Gives a key to everyone holding a Discord role who has none.' },
];

export function StaffCommands() {
  return (
    <Section title="Staff commands">
      <Text size="sm" mb="xs">
        Your team uses these in your server after Sync commands. Each member first links their Discord user id on their{' '}
        <Anchor component={Link} to="/account">
          account page
        </Anchor>
        ; anyone else is told “You are not on this service’s team.”
      </Text>
      <Table.ScrollContainer minWidth={0}>
        <Table aria-label="Staff commands" fz="sm" verticalSpacing={6}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Command</Table.Th>
              <Table.Th>Who may use it</Table.Th>
              <Table.Th visibleFrom="sm">What it does</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {COMMANDS.map((c) => (
              <Table.Tr key={c.name}>
                <Table.Td ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                  {c.name}
                </Table.Td>
                <Table.Td>{c.who}</Table.Td>
                <Table.Td visibleFrom="sm">{c.does}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Section>
  );
}
