import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ActionIcon, Anchor, Badge, Button, Group, Menu, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { SERVICES_KEY, useServices, type Service } from './queries';

/** Contract §17's roles, as the services list shows them. */
export const ROLE_WORDS: Record<Service['role'], string> = { owner: 'Owner', manager: 'Manager', support: 'Support', reseller: 'Reseller' };

function NewServiceDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [identifier, setIdentifier] = useState('');
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/services', {
          body: { name: name.trim(), ...(identifier.trim() ? { identifier: identifier.trim() } : {}) },
        }),
      ),
    onSuccess: (service) => {
      void queryClient.invalidateQueries({ queryKey: SERVICES_KEY });
      notifySuccess(`Service “${service.name}” created`);
      setName('');
      setIdentifier('');
      onClose();
      // A new service has nothing yet: open it, where its first steps are (contract §27).
      navigate(`/services/${service.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={opened} onClose={onClose} title="New service" centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
          <TextInput
            label="Identifier"
            description="3 to 48 of a-z, 0-9 and -; left empty, the server picks one"
            value={identifier}
            onChange={(e) => setIdentifier(e.currentTarget.value)}
          />
          {create.error && (
            <Text c="red" size="sm" role="alert">
              {messageOf(create.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RenameDialog({ service, onClose }: { service: Service | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(service?.name ?? '');
  const rename = useMutation({
    mutationFn: async (target: Service) =>
      unwrap(await api.PATCH('/api/v1/services/{id}', { params: { path: { id: target.id } }, body: { name: name.trim() } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: SERVICES_KEY });
      notifySuccess('Service renamed');
      onClose();
    },
  });
  return (
    <Modal opened={service !== null} onClose={onClose} title={`Rename ${service?.name ?? ''}`} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (service) rename.mutate(service);
        }}
      >
        <Stack>
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
          {rename.error && (
            <Text c="red" size="sm" role="alert">
              {messageOf(rename.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={rename.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function ServicesPage() {
  const services = useServices();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<Service | null>(null);
  const [deleting, setDeleting] = useState<Service | null>(null);
  const remove = useMutation({
    mutationFn: async (target: Service) => unwrap(await api.DELETE('/api/v1/services/{id}', { params: { path: { id: target.id } } })),
    onSuccess: (_data, target) => {
      void queryClient.invalidateQueries({ queryKey: SERVICES_KEY });
      notifySuccess(`Service “${target.name}” deleted`);
      setDeleting(null);
    },
    onError: notifyError,
  });

  return (
    <>
      <PageHeader title="Services">
        <Button onClick={() => setCreating(true)}>New service</Button>
      </PageHeader>
      {services.isPending ? (
        <Loading label="Loading services" />
      ) : services.isError ? (
        <ErrorState error={services.error} retry={() => services.refetch()} />
      ) : services.data.length === 0 ? (
        <Empty title="No services yet">A service holds keys, scripts and settings for one product. Create one to start.</Empty>
      ) : (
        <Table.ScrollContainer minWidth={0}>
          {/* On a phone the identifier goes under the name and the date is left out, so the row's menu stays on screen. */}
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th visibleFrom="sm">Identifier</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th visibleFrom="sm">Created</Table.Th>
                <Table.Th>
                  <span className="visually-hidden">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {services.data.map((service) => (
                <Table.Tr key={service.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/services/${service.id}`}>
                      {service.name}
                    </Anchor>
                    <Text ff="monospace" size="xs" c="dimmed" hiddenFrom="sm" style={{ overflowWrap: 'anywhere' }}>
                      {service.identifier}
                    </Text>
                  </Table.Td>
                  <Table.Td visibleFrom="sm">
                    <Text ff="monospace" size="sm">
                      {service.identifier}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={service.role === 'owner' ? 'blue' : 'gray'}>
                      {ROLE_WORDS[service.role]}
                    </Badge>
                  </Table.Td>
                  <Table.Td visibleFrom="sm">{new Date(service.createdAt).toLocaleDateString()}</Table.Td>
                  <Table.Td>
                    {/* Renaming and deleting are the owner's (contract §17): a member's row has no menu. */}
                    <Group justify="flex-end">
                      {service.role === 'owner' && (
                        <Menu position="bottom-end">
                          <Menu.Target>
                            <ActionIcon variant="subtle" aria-label={`Actions for ${service.name}`}>
                              <span aria-hidden="true">⋯</span>
                            </ActionIcon>
                          </Menu.Target>
                          <Menu.Dropdown>
                            <Menu.Item onClick={() => setRenaming(service)}>Rename</Menu.Item>
                            <Menu.Item color="red" onClick={() => setDeleting(service)}>
                              Delete
                            </Menu.Item>
                          </Menu.Dropdown>
                        </Menu>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <NewServiceDialog opened={creating} onClose={() => setCreating(false)} />
      <RenameDialog key={renaming?.id ?? 'none'} service={renaming} onClose={() => setRenaming(null)} />
      <ConfirmDialog
        opened={deleting !== null}
        title={`Delete ${deleting?.name ?? ''}?`}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting)}
        busy={remove.isPending}
      >
        Deleting the service deletes its keys, scripts and settings for good. Clients using its keys stop working at once.
      </ConfirmDialog>
    </>
  );
}
