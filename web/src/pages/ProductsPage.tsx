import { useState } from 'react';
import { Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyAction } from '../components/CopyAction';
import { notifyError, notifySuccess } from '../components/notify';
import { Empty, ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { OrdersList } from '../selling/OrdersList';
import { ProductDialog } from '../selling/ProductDialog';
import { ShopSecretsForm } from '../selling/ShopSecretsForm';
import { PRODUCT_PATH, PRODUCTS_PATH, SHOP_NAMES, expirationText, type Product } from '../selling/types';

const URL_KINDS = ['sellix', 'sellauth', 'generic'] as const;

/** One product: what it sells and the delivery URL to paste into each shop. */
function ProductCard({ product, onEdit, onDelete }: { product: Product; onEdit: () => void; onDelete: () => void }) {
  return (
    <Paper withBorder p="md" component="article" aria-label={product.name}>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={4}>
          <Title order={3} size="h4">
            {product.name}
          </Title>
          <Group gap="xs">
            <Badge variant="light">{expirationText(product)}</Badge>
            {product.isPremium && <Badge color="grape">Premium</Badge>}
            <Badge variant="outline">
              Up to {product.maxHwids} HWID{product.maxHwids === 1 ? '' : 's'}
            </Badge>
            <Badge variant="outline">
              {product.maxSessions
                ? `${product.maxSessions} device${product.maxSessions === 1 ? '' : 's'} at once`
                : 'Any number of devices at once'}
            </Badge>
          </Group>
          {product.note && (
            <Text size="sm" c="dimmed">
              Note: {product.note}
            </Text>
          )}
        </Stack>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={onEdit} aria-label={`Edit ${product.name}`}>
            Edit
          </Button>
          <Button size="xs" variant="subtle" color="red" onClick={onDelete} aria-label={`Delete ${product.name}`}>
            Delete
          </Button>
        </Group>
      </Group>
      <Stack gap="xs" mt="sm">
        {URL_KINDS.map((kind) => (
          <Group key={kind} gap="xs" wrap="nowrap" align="center">
            <Text size="sm" w={90} fw={500}>
              {SHOP_NAMES[kind]}
            </Text>
            <Text size="sm" ff="monospace" style={{ flex: 1, overflowWrap: 'anywhere' }} aria-label={`${SHOP_NAMES[kind]} delivery URL`}>
              {product.deliveryUrls[kind]}
            </Text>
            <CopyAction
              size="xs"
              value={product.deliveryUrls[kind]}
              label="Copy"
              ariaLabel={`Copy the ${SHOP_NAMES[kind]} delivery URL of ${product.name}`}
              copiedMessage={`${SHOP_NAMES[kind]} delivery URL copied`}
            />
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

/** Products, the shop secrets and the orders shops delivered (contract §12.2). */
export default function ProductsPage() {
  const serviceId = useServiceId();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Product | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Product | null>(null);
  const products = useQuery({
    queryKey: ['products', serviceId],
    queryFn: async () => unwrap(await api.GET(PRODUCTS_PATH, { headers: serviceHeaders(serviceId), params: { query: { limit: '100' } } })),
  });
  const remove = useMutation({
    mutationFn: async (product: Product) =>
      unwrap(await api.DELETE(PRODUCT_PATH, { headers: serviceHeaders(serviceId), params: { path: { id: product.id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['products', serviceId] });
      notifySuccess('Product deleted');
      setDeleting(null);
    },
    onError: notifyError,
  });
  return (
    <>
      <PageHeader title="Products">
        <Button onClick={() => setEditing('new')}>New product</Button>
      </PageHeader>
      <Stack>
        <Text size="sm" c="dimmed">
          A product is what one unit sold in your shop delivers. Paste its delivery URL into the shop (Sellix: a dynamic product’s webhook;
          SellAuth: the product’s dynamic delivery URL) and save that shop’s secret below.
        </Text>
        {products.isPending ? (
          <Loading label="Loading the products" />
        ) : products.isError ? (
          <ErrorState error={products.error} retry={() => void products.refetch()} />
        ) : products.data.items.length === 0 ? (
          <Empty title="No products yet">Create one, then paste its delivery URL into your shop.</Empty>
        ) : (
          products.data.items.map((product) => (
            <ProductCard key={product.id} product={product} onEdit={() => setEditing(product)} onDelete={() => setDeleting(product)} />
          ))
        )}
        <ShopSecretsForm serviceId={serviceId} />
        <OrdersList serviceId={serviceId} />
      </Stack>
      {editing !== null && (
        <ProductDialog
          key={editing === 'new' ? 'new' : editing.id}
          opened
          onClose={() => setEditing(null)}
          serviceId={serviceId}
          product={editing === 'new' ? null : editing}
        />
      )}
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete product"
        onClose={() => setDeleting(null)}
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        {deleting ? `${deleting.name}: its delivery URLs stop working. Keys already sold stay as they are.` : ''}
      </ConfirmDialog>
    </>
  );
}
