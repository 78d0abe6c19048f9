import { useState } from 'react';
import { Alert, Anchor, Button, Group, Pagination, ScrollArea, Stack, Table, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError, api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyAction } from '../components/CopyAction';
import { Section } from '../components/Section';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { sectionPath } from '../layout/sections';
import { useServiceId } from '../services/useServiceId';
import type { ApiData, ItemOf } from '../api/types';

type ShortLink = ItemOf<ApiData<'/api/v1/public/shortener/links'>['items']>;

const LINKS = '/api/v1/public/shortener/links' as const;
const SLUG = /^[A-Za-z0-9_-]{3,32}$/;

/** The same rules as the server (contract: URL shortener), said before sending. */
function urlProblem(url: string): string | null {
  if (!url) return null;
  if (url.length > 2048) return 'The address is longer than 2,048 characters';
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Only http:// and https:// addresses can be shortened';
  } catch {
    return 'Enter a whole address, starting with https://';
  }
  return null;
}

function CreateLink({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [slug, setSlug] = useState('');
  const urlError = urlProblem(url.trim());
  const slugError = slug.trim() && !SLUG.test(slug.trim()) ? '3 to 32 letters, digits, _ or -' : null;
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/public/shortener/create', {
          headers: serviceHeaders(serviceId),
          body: { url: url.trim(), ...(slug.trim() ? { slug: slug.trim() } : {}) },
        }),
      ),
    onSuccess: (link) => {
      void queryClient.invalidateQueries({ queryKey: ['short-links', serviceId] });
      notifySuccess(`Short link created: ${link.shortUrl}`);
      setUrl('');
      setSlug('');
    },
  });
  return (
    <Section title="New short link">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!urlError && !slugError) create.mutate();
        }}
      >
        <Group align="flex-start" gap="xs" wrap="wrap">
          <TextInput
            label="Address to shorten"
            placeholder="https://example.com/get-key"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={urlError}
            required
            style={{ flex: '1 1 280px' }}
          />
          <TextInput
            label="Short name"
            description="Optional; random when empty"
            value={slug}
            onChange={(e) => setSlug(e.currentTarget.value)}
            error={slugError}
            w={200}
          />
          <Button type="submit" mt={24} loading={create.isPending} disabled={!url.trim() || !!urlError || !!slugError}>
            Shorten
          </Button>
        </Group>
        {create.error && (
          <Text c="red" size="sm" role="alert" mt="xs">
            {create.error instanceof ApiError && create.error.status === 409
              ? `The slug “${slug.trim()}” is taken: choose another.`
              : messageOf(create.error)}
          </Text>
        )}
      </form>
    </Section>
  );
}

function LinkList({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<ShortLink | null>(null);
  const list = useQuery({
    queryKey: ['short-links', serviceId, page],
    queryFn: async () =>
      unwrap(await api.GET(LINKS, { headers: serviceHeaders(serviceId), params: { query: { page: String(page), limit: '20' } } })),
    placeholderData: keepPreviousData,
  });
  const remove = useMutation({
    mutationFn: async (link: ShortLink) =>
      unwrap(await api.DELETE(LINKS, { headers: serviceHeaders(serviceId), params: { query: { slug: link.slug } } })),
    onSuccess: (_d, link) => {
      void queryClient.invalidateQueries({ queryKey: ['short-links', serviceId] });
      notifySuccess(`Short link ${link.slug} deleted`);
      setDeleting(null);
    },
    onError: notifyError,
  });
  return (
    <Section title="Short links">
      {list.isPending ? (
        <Loading label="Loading short links" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty title="No short links yet">Shorten an address above; each visit of the short link is counted.</Empty>
      ) : (
        <ScrollArea type="auto">
          <Table striped aria-label="Short links" miw={640}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Short link</Table.Th>
                <Table.Th>Goes to</Table.Th>
                <Table.Th ta="right">Clicks</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.items.map((link) => (
                <Table.Tr key={link.slug}>
                  <Table.Td ff="monospace">{link.shortUrl}</Table.Td>
                  <Table.Td miw={200} maw={320} style={{ overflowWrap: 'anywhere' }}>
                    <Anchor href={link.url} target="_blank" rel="noreferrer noopener" size="sm">
                      {link.url}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{link.clicks.toLocaleString()}</Table.Td>
                  <Table.Td>{new Date(link.createdAt).toLocaleDateString()}</Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <CopyAction
                        value={link.shortUrl}
                        label="Copy"
                        ariaLabel={`Copy ${link.slug}`}
                        size="compact-xs"
                        copiedMessage="Short link copied"
                      />
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        color="red"
                        aria-label={`Delete ${link.slug}`}
                        onClick={() => setDeleting(link)}
                      >
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
      {list.data && list.data.totalPages > 1 && (
        <Pagination mt="sm" total={list.data.totalPages} value={page} onChange={setPage} size="sm" />
      )}
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete short link"
        onClose={() => setDeleting(null)}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        {deleting ? `${deleting.shortUrl} stops working at once (visitors get a “Link not found” page).` : ''}
      </ConfirmDialog>
    </Section>
  );
}

/**
 * The URL shortener is behind the service's allowUrlShortener flag (contract: URL shortener). The
 * dashboard follows the same flag: when it is off the page says so and offers to turn it on.
 */
export default function ShortLinksPage() {
  const serviceId = useServiceId();
  const queryClient = useQueryClient();
  const path = { params: { path: { id: serviceId } } };
  const permissions = useQuery({
    queryKey: ['permissions', serviceId],
    queryFn: async () => unwrap(await api.GET('/api/v1/services/{id}/permissions', path)),
  });
  const enable = useMutation({
    mutationFn: async () => unwrap(await api.PATCH('/api/v1/services/{id}/permissions', { ...path, body: { allowUrlShortener: true } })),
    onSuccess: (data) => {
      queryClient.setQueryData(['permissions', serviceId], data);
      notifySuccess('URL shortener turned on');
    },
    onError: notifyError,
  });
  return (
    <>
      <PageHeader title="Short links" />
      {permissions.isPending ? (
        <Loading label="Loading the service's permissions" />
      ) : permissions.isError ? (
        <ErrorState error={permissions.error} retry={() => void permissions.refetch()} />
      ) : !permissions.data.allowUrlShortener ? (
        <Alert color="yellow" title="The URL shortener is off for this service" role="status">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              Short links need the “URL shortener” permission (allowUrlShortener). Turn it on here or in{' '}
              <Anchor component={Link} to={sectionPath(serviceId, 'api-access')}>
                API access
              </Anchor>
              ; it also lets the service key create short links.
            </Text>
            <Button size="xs" onClick={() => enable.mutate()} loading={enable.isPending}>
              Turn on the URL shortener
            </Button>
          </Stack>
        </Alert>
      ) : (
        <Stack>
          <CreateLink serviceId={serviceId} />
          <LinkList serviceId={serviceId} />
        </Stack>
      )}
    </>
  );
}
