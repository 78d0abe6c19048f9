import { useState } from 'react';
import { Code, Pagination, ScrollArea, Stack, Table } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { Section } from '../components/Section';
import { Empty, ErrorState, Loading } from '../components/states';
import { ORDERS_PATH, SHOP_NAMES } from './types';

/** Delivered orders, newest first: the shop's order id, the shop, the product, the keys, when. */
export function OrdersList({ serviceId }: { serviceId: string }) {
  const [page, setPage] = useState(1);
  const orders = useQuery({
    queryKey: ['orders', serviceId, page],
    queryFn: async () =>
      unwrap(await api.GET(ORDERS_PATH, { headers: serviceHeaders(serviceId), params: { query: { page: String(page), limit: '20' } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <Section title="Orders">
      {orders.isPending ? (
        <Loading label="Loading the orders" />
      ) : orders.isError ? (
        <ErrorState error={orders.error} retry={() => void orders.refetch()} />
      ) : orders.data.items.length === 0 ? (
        <Empty title="No orders yet">Keys a shop delivers are listed here with their order.</Empty>
      ) : (
        <Stack>
          <ScrollArea type="auto">
            <Table striped aria-label="Orders" miw={640}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Order</Table.Th>
                  <Table.Th>Shop</Table.Th>
                  <Table.Th>Product</Table.Th>
                  <Table.Th>Keys</Table.Th>
                  <Table.Th>When</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {orders.data.items.map((order) => (
                  <Table.Tr key={`${order.shop}:${order.orderId}`}>
                    <Table.Td ff="monospace">{order.orderId}</Table.Td>
                    <Table.Td>{SHOP_NAMES[order.shop] ?? order.shop}</Table.Td>
                    <Table.Td>{order.productName}</Table.Td>
                    <Table.Td>
                      <Stack gap={2}>
                        {order.keys.map((key) => (
                          <Code key={key}>{key}</Code>
                        ))}
                      </Stack>
                    </Table.Td>
                    <Table.Td>{new Date(order.createdAt).toLocaleString()}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
          {orders.data.totalPages > 1 && <Pagination total={orders.data.totalPages} value={page} onChange={setPage} size="sm" />}
        </Stack>
      )}
    </Section>
  );
}
