import { useState } from 'react';
import { Alert, Badge, Button, Checkbox, Code, Group, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyAction } from '../components/CopyAction';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { EVENTS, eventLabel } from '../lib/labels';

const PATH = '/api/v1/keys/api/event-endpoints';

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

/** What the server accepts (contract §22): any https address, or one on a plain-http origin the operator allowed. */
export function endpointUrlProblem(url: string, httpOrigins: string[]): string | null {
  const value = url.trim();
  if (value.startsWith('https://')) return null;
  let origin: string | null = null;
  try {
    origin = new URL(value).origin;
  } catch {
    origin = null;
  }
  if (origin && httpOrigins.includes(origin)) return null;
  return httpOrigins.length
    ? `The address must start with https:// (or be on ${httpOrigins.join(', ')}, which this server allows over plain http).`
    : 'The address must start with https://.';
}

function AddEndpoint({
  serviceId,
  httpOrigins,
  onCreated,
}: {
  serviceId: string;
  httpOrigins: string[];
  onCreated: (secret: string) => void;
}) {
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async (body: { url: string; events: string[] }) =>
      unwrap(await api.POST(PATH, { headers: serviceHeaders(serviceId), body })),
    onSuccess: (data) => {
      setUrl('');
      setChosen([]);
      setAll(true);
      onCreated(data.secret);
    },
  });
  return (
    <Section title="Add an endpoint">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const problem = endpointUrlProblem(url, httpOrigins);
          if (problem) return setFormError(problem);
          if (!all && chosen.length === 0) return setFormError('Choose at least one event, or All events.');
          setFormError(null);
          create.mutate({ url: url.trim(), events: all ? ['*'] : chosen });
        }}
      >
        <Stack maw={640}>
          <TextInput
            label="Endpoint URL"
            placeholder="https://example.com/keyward-events"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
          />
          <Checkbox label="All events" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          {!all && (
            <Checkbox.Group label="Events" value={chosen} onChange={setChosen}>
              <Stack gap={4} mt={4}>
                {EVENTS.map((event) => (
                  <Checkbox key={event.name} value={event.name} label={`${event.label} (${event.name})`} />
                ))}
              </Stack>
            </Checkbox.Group>
          )}
          {(formError ?? create.error) && (
            <Text c="red" size="sm" role="alert">
              {formError ?? messageOf(create.error)}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={create.isPending}>
              Add endpoint
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

function DeliveryLog({ serviceId, endpoint }: { serviceId: string; endpoint: Endpoint }) {
  const log = useQuery({
    queryKey: ['event-deliveries', serviceId, endpoint.id],
    queryFn: async () =>
      unwrap(await api.GET(`${PATH}/{id}/deliveries`, { headers: serviceHeaders(serviceId), params: { path: { id: endpoint.id } } })),
  });
  if (log.isPending) return <Loading label="Loading the delivery log" />;
  if (log.isError) return <ErrorState error={log.error} retry={() => void log.refetch()} />;
  if (log.data.items.length === 0) return <Text size="sm">Nothing sent yet.</Text>;
  return (
    <Table aria-label={`Deliveries to ${endpoint.url}`} striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>When</Table.Th>
          <Table.Th>Event</Table.Th>
          <Table.Th>Attempt</Table.Th>
          <Table.Th>Result</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {log.data.items.map((d) => (
          <Table.Tr key={d.id}>
            <Table.Td>{new Date(d.attemptedAt).toLocaleString()}</Table.Td>
            <Table.Td>{eventLabel(d.type)}</Table.Td>
            <Table.Td>{d.attempt}</Table.Td>
            <Table.Td>
              {d.ok ? (
                <Badge color="teal">Delivered ({d.statusCode})</Badge>
              ) : (
                <Badge color="red">{d.error ?? `HTTP ${d.statusCode}`}</Badge>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Event endpoints (contract §12.4): add one (its secret shown once, with a copy button), list, delete, delivery log, test event. */
export default function EventEndpointsPage() {
  const serviceId = useServiceId();
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  const endpoints = useQuery({
    queryKey: ['event-endpoints', serviceId],
    queryFn: async () => unwrap(await api.GET(PATH, { headers: serviceHeaders(serviceId) })),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['event-endpoints', serviceId] });
  const remove = useMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE(PATH, { headers: serviceHeaders(serviceId), params: { query: { id } } })),
    onSuccess: () => {
      setDeleting(null);
      refresh();
      notifySuccess('Endpoint deleted');
    },
    onError: notifyError,
  });
  const test = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.POST(`${PATH}/{id}/test`, { headers: serviceHeaders(serviceId), params: { path: { id } } })),
    onSuccess: (_data, id) => {
      notifySuccess('Test event queued: it shows in the delivery log once sent');
      setOpened(id);
      setTimeout(() => void queryClient.invalidateQueries({ queryKey: ['event-deliveries', serviceId, id] }), 3000);
    },
    onError: notifyError,
  });

  return (
    <Stack>
      <PageHeader title="Event endpoints" />
      <Text size="sm">
        Keyward posts a signed message to each endpoint when something happens to your keys (Standard Webhooks format). Failed deliveries
        are retried for about a day.
      </Text>
      <AddEndpoint
        serviceId={serviceId}
        httpOrigins={endpoints.data?.httpOrigins ?? []}
        onCreated={(value) => {
          setSecret(value);
          refresh();
        }}
      />
      <Section title="Endpoints">
        {endpoints.isPending && <Loading label="Loading the endpoints" />}
        {endpoints.isError && <ErrorState error={endpoints.error} retry={() => void endpoints.refetch()} />}
        {endpoints.data && endpoints.data.items.length === 0 && <Empty title="No endpoints">Add one above.</Empty>}
        {endpoints.data && endpoints.data.items.length > 0 && (
          <Stack>
            {endpoints.data.items.map((endpoint) => (
              <Stack key={endpoint.id} gap="xs" component="article" aria-label={endpoint.url}>
                <Group justify="space-between" wrap="wrap">
                  <Stack gap={0}>
                    <Text ff="monospace" size="sm">
                      {endpoint.url}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {endpoint.events.includes('*') ? 'All events' : endpoint.events.map(eventLabel).join('; ')}
                    </Text>
                  </Stack>
                  <Group gap="xs">
                    <Button size="xs" variant="light" onClick={() => setOpened(opened === endpoint.id ? null : endpoint.id)}>
                      {opened === endpoint.id ? 'Hide delivery log' : 'Delivery log'}
                    </Button>
                    <Button
                      size="xs"
                      variant="light"
                      loading={test.isPending && test.variables === endpoint.id}
                      onClick={() => test.mutate(endpoint.id)}
                    >
                      Send test event
                    </Button>
                    <Button size="xs" variant="subtle" color="red" onClick={() => setDeleting(endpoint)}>
                      Delete
                    </Button>
                  </Group>
                </Group>
                {opened === endpoint.id && <DeliveryLog serviceId={serviceId} endpoint={endpoint} />}
              </Stack>
            ))}
          </Stack>
        )}
      </Section>

      <Modal opened={secret !== null} onClose={() => setSecret(null)} title="Signing secret" closeOnClickOutside={false}>
        <Stack>
          <Alert color="yellow">Copy it now: it is shown only this once. Your receiver checks each message’s signature with it.</Alert>
          <Code block aria-label="Signing secret">
            {secret}
          </Code>
          <Group>
            <CopyAction value={secret ?? ''} label="Copy secret" copiedMessage="Secret copied" />
            <Button onClick={() => setSecret(null)}>Done</Button>
          </Group>
        </Stack>
      </Modal>

      <ConfirmDialog
        opened={deleting !== null}
        title="Delete endpoint"
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        busy={remove.isPending}
      >
        {deleting ? `Stop sending events to ${deleting.url}? Events still waiting for it are dropped.` : ''}
      </ConfirmDialog>
    </Stack>
  );
}
