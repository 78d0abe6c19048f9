import { useState } from 'react';
import { Button, Checkbox, FileInput, Group, Modal, NativeSelect, Paper, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, messageOf, serviceHeaders, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';

/** "Import keys": a Keyward export or Luarmor's users, all or nothing (contract §7.4). */
export function ImportDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [format, setFormat] = useState<'luarmor' | 'keyward-csv' | 'keyward-json'>('luarmor');
  const [file, setFile] = useState<File | null>(null);
  const [skip, setSkip] = useState(false);
  const importKeys = useMutation({
    mutationFn: async () => {
      if (!file) throw new Error('Choose a file');
      const text = await file.text();
      let data: string | unknown[] = text;
      if (format !== 'keyward-csv') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new Error('The file is not valid JSON');
        }
        if (!Array.isArray(parsed)) throw new Error('The file must hold a JSON array of records');
        data = parsed;
      }
      return unwrap(
        await api.POST('/api/v1/keys/api/keys/import', {
          headers: serviceHeaders(serviceId),
          body: { format, data, ...(skip ? { onDuplicate: 'skip' as const } : {}) },
        }),
      );
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      notifySuccess(
        `Imported ${result.imported.active} active and ${result.imported.generated} generated keys${result.skipped ? `, ${result.skipped} skipped` : ''}`,
      );
      setFile(null);
      onClose();
    },
  });
  const error = importKeys.error;
  const body = error instanceof ApiError ? error.body : null;
  return (
    <Modal opened={opened} onClose={onClose} title="Import keys" centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          importKeys.mutate();
        }}
      >
        <Stack>
          <NativeSelect
            label="Format"
            value={format}
            onChange={(e) => setFormat(e.currentTarget.value as typeof format)}
            data={[
              { value: 'luarmor', label: 'Luarmor users (JSON)' },
              { value: 'keyward-csv', label: 'Keyward export (CSV)' },
              { value: 'keyward-json', label: 'Keyward export (JSON)' },
            ]}
          />
          <FileInput
            label="File"
            placeholder="Choose a file"
            value={file}
            onChange={setFile}
            accept=".json,.csv,application/json,text/csv"
            required
            clearable
          />
          <Checkbox label="Skip keys that already exist" checked={skip} onChange={(e) => setSkip(e.currentTarget.checked)} />
          {error && (
            <Paper withBorder p="sm" role="alert">
              <Text c="red" size="sm">
                {messageOf(error)}
              </Text>
              {body?.errors && (
                <ScrollArea.Autosize mah={200}>
                  <Table fz="xs" aria-label="Import errors">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Record</Table.Th>
                        <Table.Th>Field</Table.Th>
                        <Table.Th>Problem</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {body.errors.map((row) => (
                        <Table.Tr key={`${row.index}-${row.field}`}>
                          <Table.Td>{row.index + 1}</Table.Td>
                          <Table.Td>{row.field}</Table.Td>
                          <Table.Td>{row.error}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </ScrollArea.Autosize>
              )}
              {body?.duplicates && (
                <Text size="xs" mt="xs">
                  Already on the server: {body.duplicates.slice(0, 20).join(', ')}
                  {body.duplicates.length > 20 ? ` and ${body.duplicates.length - 20} more` : ''}. Tick “Skip keys that already exist” to
                  import the rest.
                </Text>
              )}
            </Paper>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={importKeys.isPending}>
              Import
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
