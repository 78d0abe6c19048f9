import { Alert, Badge, Button, Group, List, Stack, Text } from '@mantine/core';
import { messageOf } from '../api/client';
import { CopyAction } from '../components/CopyAction';
import { Section } from '../components/Section';
import { ErrorState, Loading } from '../components/states';
import { checklist, interactionsUrl, inviteUrl, type ChatSetup, type Step } from './steps';
import { useChatStatus, useSyncCommands } from './queries';

function StepItem({ step, children }: { step: Step; children?: React.ReactNode }) {
  const state = step.done ? 'Done' : step.optional ? 'Optional' : 'To do';
  // The state sits beside the step's name rather than in a column of its own, which a 375 px phone cannot spare.
  return (
    <List.Item aria-label={`${step.label}: ${state.toLowerCase()}`}>
      <Stack gap={4}>
        <Group gap="xs" wrap="nowrap">
          <Badge color={step.done ? 'green' : step.optional ? 'gray' : 'orange'} variant="light" style={{ flexShrink: 0 }}>
            {state}
          </Badge>
          <Text fw={600} size="sm">
            {step.label}
          </Text>
        </Group>
        <Text size="sm">{step.sentence}</Text>
        {children}
      </Stack>
    </List.Item>
  );
}

/** The live checklist of contract §24.1, with Sync commands beside it: the first thing a seller sees on the page. */
export function SetupChecklist({ serviceId, identifier, setup }: { serviceId: string; identifier: string; setup: ChatSetup }) {
  const status = useChatStatus(serviceId);
  const sync = useSyncCommands(serviceId);
  const steps = checklist(setup, status.data);
  const endpoint = interactionsUrl(window.location.origin, identifier);
  const ready = Boolean(setup.applicationId && setup.botTokenSet && setup.guild);
  const left = steps.filter((s) => !s.done && !s.optional).length;
  return (
    <Section title="Setup checklist">
      <Stack>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text size="sm" role="status">
            {status.isPending ? 'Asking Discord…' : left === 0 ? 'Everything is set up.' : `${left} ${left === 1 ? 'step' : 'steps'} left.`}
          </Text>
          <Group gap="xs" wrap="wrap">
            <Button variant="light" onClick={() => void status.refetch()} loading={status.isFetching}>
              Check again
            </Button>
            <Button
              onClick={() => sync.mutate()}
              loading={sync.isPending}
              disabled={!ready}
              title={ready ? undefined : 'Save the application details and connect the server first'}
            >
              Sync commands
            </Button>
          </Group>
        </Group>
        {sync.error && (
          <Text c="red" size="sm" role="alert">
            {messageOf(sync.error)}
          </Text>
        )}
        {sync.data && (
          <Text size="sm" c="green.8" role="status">
            Commands synced: {sync.data.synced.map((name) => `/${name}`).join(', ')}.
          </Text>
        )}
        {status.isPending && <Loading label="Reading your setup from Discord" />}
        {status.isError && <ErrorState error={status.error} retry={() => void status.refetch()} />}
        {status.data?.lastError && (
          <Alert color="orange" title="Discord’s last answer" role="alert">
            {status.data.lastError}
          </Alert>
        )}
        <List spacing="md" listStyleType="none" aria-label="Discord setup steps" styles={{ itemWrapper: { display: 'block' } }}>
          {steps.map((step) => (
            <StepItem key={step.id} step={step}>
              {step.id === 'interactions' && !step.done && (
                <Group gap="xs" wrap="wrap">
                  <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                    {endpoint}
                  </Text>
                  <CopyAction
                    size="xs"
                    value={endpoint}
                    label="Copy endpoint URL"
                    copiedMessage="Interactions Endpoint URL copied: paste it in the developer portal"
                  />
                </Group>
              )}
              {step.id === 'bot' && !step.done && setup.applicationId && (
                <Button
                  component="a"
                  href={inviteUrl(setup.applicationId)}
                  target="_blank"
                  rel="noreferrer"
                  size="xs"
                  variant="light"
                  w="fit-content"
                >
                  Invite the bot
                </Button>
              )}
            </StepItem>
          ))}
        </List>
      </Stack>
    </Section>
  );
}
