import { useState } from 'react';
import { MONO_INPUT } from '../components/monoInput';
import {
  Alert,
  Button,
  Checkbox,
  FileInput,
  Group,
  Modal,
  NativeSelect,
  Paper,
  ScrollArea,
  Stack,
  Table,
  Text,
  Textarea,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, messageOf, serviceHeaders, unwrap } from '../api/client';
import { notifySuccess } from '../components/notify';
import { detectImport, type ImportFormat } from './importFormat';
import { blockedBy, describeCounts, ImportPreview, totalOf, type PreviewData } from './ImportPreview';

type ImportBody = { format: ImportFormat; data: string | unknown[]; onDuplicate?: 'skip' };

/** "Import keys": a Keyward export or Luarmor's users, previewed, then imported all or nothing (contract §7.4, §27). */
export function ImportDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [format, setFormat] = useState<'auto' | ImportFormat>('auto');
  const [file, setFile] = useState<File | null>(null);
  const [pasted, setPasted] = useState('');
  const [skip, setSkip] = useState(false);
  // What the pasted text is, said before importing (a file is read when Import is pressed).
  const preview = pasted.trim() && !file ? detectImport(pasted, format === 'auto' ? undefined : format) : null;
  // Step one asks the server what it would store (dryRun, contract §27); step two imports exactly that after the seller confirms.
  const [checked, setChecked] = useState<{ body: ImportBody; preview: PreviewData } | null>(null);
  const changed = () => setChecked(null);
  const previewKeys = useMutation({
    mutationFn: async () => {
      const text = file ? await file.text() : pasted;
      const detected = detectImport(text, format === 'auto' ? undefined : format);
      if ('error' in detected) throw new Error(detected.error);
      const body: ImportBody = { format: detected.format, data: detected.data, ...(skip ? { onDuplicate: 'skip' as const } : {}) };
      const preview = unwrap(
        await api.POST('/api/v1/keys/api/keys/import', { headers: serviceHeaders(serviceId), body: { ...body, dryRun: true } }),
      ) as PreviewData;
      return { body, preview };
    },
    onSuccess: setChecked,
  });
  const importKeys = useMutation({
    mutationFn: async (c: { body: ImportBody; preview: PreviewData }) => {
      const result = unwrap(await api.POST('/api/v1/keys/api/keys/import', { headers: serviceHeaders(serviceId), body: c.body })) as {
        skipped: number;
      };
      return { result, counts: c.preview.counts };
    },
    onSuccess: ({ result, counts }) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      // The preview's counts are what was stored (with skip they leave out the keys already there, as the import does).
      notifySuccess(
        `Imported ${totalOf(counts)} key${totalOf(counts) === 1 ? '' : 's'}: ${describeCounts(counts)}${result.skipped ? `; ${result.skipped} already there skipped` : ''}`,
      );
      setFile(null);
      setPasted('');
      setChecked(null);
      onClose();
    },
  });
  const error = importKeys.error ?? previewKeys.error;
  const body = error instanceof ApiError ? error.body : null;
  return (
    <Modal opened={opened} onClose={onClose} title="Import keys" centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (checked) importKeys.mutate(checked);
          else previewKeys.mutate();
        }}
      >
        <Stack>
          <Alert color="blue" variant="light" p="xs">
            Keys are unique on this whole server: a key that already exists in another of your services cannot be imported again. To move
            keys between your services, tick them in the table and choose “Move to service”.
          </Alert>
          <NativeSelect
            label="Format"
            value={format}
            onChange={(e) => {
              setFormat(e.currentTarget.value as typeof format);
              changed();
            }}
            data={[
              { value: 'auto', label: 'Detect automatically' },
              { value: 'keyward-csv', label: 'Keyward export (CSV)' },
              { value: 'keyward-json', label: 'Keyward export (JSON)' },
              { value: 'luarmor', label: 'Luarmor users (JSON)' },
            ]}
          />
          <FileInput
            label="File"
            placeholder="Choose a file"
            value={file}
            onChange={(f) => {
              setFile(f);
              changed();
            }}
            accept=".json,.csv,application/json,text/csv"
            clearable
          />
          <Textarea
            label="Or paste the export"
            placeholder={'key,type,status,… (a Keyward CSV), [ {…} ] (JSON) or { "users": [ … ] } (Luarmor)'}
            value={pasted}
            onChange={(e) => {
              setPasted(e.currentTarget.value);
              changed();
            }}
            disabled={file !== null}
            autosize
            minRows={3}
            maxRows={8}
            styles={MONO_INPUT}
            fz="xs"
          />
          {preview && (
            <Text size="sm" c={'error' in preview ? 'red' : 'dimmed'} aria-live="polite">
              {'error' in preview
                ? preview.error
                : `Recognised: ${preview.label}, ${preview.records} record${preview.records === 1 ? '' : 's'}.`}
            </Text>
          )}
          <Checkbox
            label="Skip keys that already exist"
            checked={skip}
            onChange={(e) => {
              setSkip(e.currentTarget.checked);
              changed();
            }}
          />
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
          {checked && <ImportPreview preview={checked.preview} skipping={checked.body.onDuplicate === 'skip'} />}
          <Group justify="flex-end">
            {checked ? (
              <>
                <Button variant="default" onClick={changed}>
                  Back
                </Button>
                <Button
                  type="submit"
                  loading={importKeys.isPending}
                  disabled={totalOf(checked.preview.counts) === 0 || blockedBy(checked.preview, checked.body.onDuplicate === 'skip') > 0}
                >
                  Import {totalOf(checked.preview.counts)} key{totalOf(checked.preview.counts) === 1 ? '' : 's'}
                </Button>
              </>
            ) : (
              <Button type="submit" loading={previewKeys.isPending}>
                Preview import
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
