import { useState } from 'react';
import { Button, Group, PasswordInput, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { Section } from '../components/Section';
import { ErrorState, Loading } from '../components/states';
import { SHOP_PATH } from './types';

const FIELDS = [
  { name: 'genericSecret', label: 'Generic shop secret', hint: 'Any text you choose; your shop signs each request with it' },
  { name: 'sellixSecret', label: 'Sellix webhook secret', hint: 'In Sellix, the Webhook secret on your shop’s settings page' },
  { name: 'sellauthSecret', label: 'SellAuth webhook secret', hint: 'In SellAuth, the Webhook secret under Shop → Miscellaneous' },
] as const;
type SecretName = (typeof FIELDS)[number]['name'];

/** Write-only: a set secret shows as "set", never its value; an empty field keeps what is stored. */
export function ShopSecretsForm({ serviceId }: { serviceId: string }) {
  const queryClient = useQueryClient();
  const secrets = useQuery({
    queryKey: ['shop', serviceId],
    queryFn: async () => unwrap(await api.GET(SHOP_PATH, { headers: serviceHeaders(serviceId) })),
  });
  const [values, setValues] = useState<Record<SecretName, string>>({ genericSecret: '', sellixSecret: '', sellauthSecret: '' });
  const save = useMutation({
    mutationFn: async (body: Partial<Record<SecretName, string | null>>) =>
      unwrap(await api.PUT(SHOP_PATH, { headers: serviceHeaders(serviceId), body })),
    onSuccess: (data) => {
      queryClient.setQueryData(['shop', serviceId], data);
      setValues({ genericSecret: '', sellixSecret: '', sellauthSecret: '' });
      notifySuccess('Shop secrets saved');
    },
  });
  if (secrets.isPending) return <Loading label="Loading the shop secrets" />;
  if (secrets.isError) return <ErrorState error={secrets.error} retry={() => void secrets.refetch()} />;
  const entered = Object.fromEntries(FIELDS.filter((f) => values[f.name].trim()).map((f) => [f.name, values[f.name].trim()]));
  return (
    <Section title="Shop secrets">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (Object.keys(entered).length > 0) save.mutate(entered);
        }}
      >
        <Stack maw={560}>
          {FIELDS.map((field) => (
            <Group key={field.name} align="flex-end" wrap="nowrap">
              <PasswordInput
                style={{ flex: 1 }}
                label={field.label}
                description={`${field.hint}. ${secrets.data[field.name] ? 'Set; type a new one to replace it.' : 'Not set.'}`}
                autoComplete="off"
                value={values[field.name]}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  setValues((v) => ({ ...v, [field.name]: value }));
                }}
              />
              {secrets.data[field.name] && (
                <Button
                  variant="subtle"
                  color="red"
                  onClick={() => save.mutate({ [field.name]: null })}
                  aria-label={`Remove the ${field.label}`}
                >
                  Remove
                </Button>
              )}
            </Group>
          ))}
          {save.error && (
            <Text c="red" size="sm" role="alert">
              {messageOf(save.error)}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={save.isPending} disabled={Object.keys(entered).length === 0}>
              Save secrets
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}
