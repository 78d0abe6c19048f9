import { useEffect, useState } from 'react';
import { Button, Code, Flex, Group, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { ErrorState, Loading, PageHeader } from '../components/states';
import { useServiceId } from '../services/useServiceId';
import { MAX_VARIABLES, variableProblems, type VariableRow } from '../scripts/variables';

const PATH = '/api/v1/keys/api/variables' as const;

/** The service's variables (contract §13.3): texts a script reads with api.variables(), for valid keys only. */
export default function VariablesPage() {
  const serviceId = useServiceId();
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<VariableRow[]>([]);
  const [tried, setTried] = useState(false);
  const current = useQuery({
    queryKey: ['variables', serviceId],
    queryFn: async () => unwrap(await api.GET(PATH, { headers: serviceHeaders(serviceId) })),
  });
  useEffect(() => {
    if (current.data) setRows(Object.entries(current.data.variables).map(([name, value]) => ({ name, value })));
  }, [current.data]);
  const problems = variableProblems(rows);
  const blocked = problems.rows.size > 0 || problems.list !== null;
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT(PATH, {
          headers: serviceHeaders(serviceId),
          body: { variables: Object.fromEntries(rows.map((row) => [row.name.trim(), row.value])) },
        }),
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(['variables', serviceId], data);
      notifySuccess('Variables saved');
      setTried(false);
    },
  });
  const update = (index: number, patch: Partial<VariableRow>) =>
    setRows((all) => all.map((row, i) => (i === index ? { ...row, ...patch } : row)));

  if (current.isPending) return <Loading label="Loading variables" />;
  if (current.isError) return <ErrorState error={current.error} retry={() => void current.refetch()} />;
  return (
    <>
      <PageHeader title="Variables" />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          if (!blocked) save.mutate();
        }}
      >
        <Stack maw={760}>
          <Text size="sm" c="dimmed">
            Short texts your script reads at run time (a message of the day, your Discord invite). Only buyers whose key is valid get them.
            At most {MAX_VARIABLES}; saving replaces the whole list.
          </Text>
          <Code block>{'local vars = api.variables()\nprint(vars.motd)'}</Code>
          {rows.map((row, index) => (
            // A row side by side on a wide screen, stacked on a phone (at 375 px the value box would shrink to a sliver).
            <Flex
              key={index}
              direction={{ base: 'column', sm: 'row' }}
              align={{ base: 'stretch', sm: 'flex-start' }}
              gap="xs"
              data-testid="variable-row"
            >
              <TextInput
                aria-label={`Variable name ${index + 1}`}
                placeholder="motd"
                value={row.name}
                onChange={(e) => update(index, { name: e.currentTarget.value })}
                error={(tried || row.name !== '') && problems.rows.get(index)}
                w={{ base: '100%', sm: 220 }}
              />
              <Textarea
                aria-label={`Variable value ${index + 1}`}
                placeholder="Update 2 is live!"
                value={row.value}
                onChange={(e) => update(index, { value: e.currentTarget.value })}
                autosize
                minRows={1}
                maxRows={6}
                style={{ flex: 1, minWidth: 0 }}
              />
              <Button
                variant="subtle"
                color="red"
                style={{ alignSelf: 'flex-start', flexShrink: 0 }}
                aria-label={`Remove variable ${index + 1}`}
                onClick={() => setRows(rows.filter((_, i) => i !== index))}
              >
                Remove
              </Button>
            </Flex>
          ))}
          {rows.length === 0 && <Text size="sm">No variables yet.</Text>}
          {problems.list && (
            <Text c="red" size="sm" role="alert">
              {problems.list}
            </Text>
          )}
          {save.isError && (
            <Text c="red" size="sm" role="alert">
              {messageOf(save.error)}
            </Text>
          )}
          <Group>
            <Button variant="default" onClick={() => setRows([...rows, { name: '', value: '' }])} disabled={rows.length >= MAX_VARIABLES}>
              Add variable
            </Button>
            <Button type="submit" loading={save.isPending} disabled={tried && blocked}>
              Save variables
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
