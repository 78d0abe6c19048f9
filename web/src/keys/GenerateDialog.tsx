import { useState, type FormEvent } from 'react';
import { Button, Checkbox, Group, Modal, NativeSelect, NumberInput, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, serviceHeaders, unwrap } from '../api/client';
import { CopyAction } from '../components/CopyAction';
import { notifySuccess } from '../components/notify';

/** "Generate keys": the form of POST /keys/api/generate, then the new keys to copy. */
export function GenerateDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [expirationType, setExpirationType] = useState<'byDays' | 'byDate' | 'lifetime'>('byDays');
  const [days, setDays] = useState<number | string>(30);
  const [date, setDate] = useState('');
  const [count, setCount] = useState<number | string>(1);
  const [note, setNote] = useState('');
  const [isPremium, setPremium] = useState(false);
  const [noHwidValidation, setNoHwid] = useState(false);
  const [maxHwids, setMaxHwids] = useState<number | string>(1);
  const [chatId, setChatId] = useState('');
  const [created, setCreated] = useState<string[] | null>(null);
  const generate = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/keys/api/generate', {
          headers: serviceHeaders(serviceId),
          body: {
            expirationType,
            count: Number(count),
            ...(expirationType === 'byDays' ? { days: Number(days) } : {}),
            ...(expirationType === 'byDate' ? { expiresAt: date ? new Date(date).toISOString() : '' } : {}),
            ...(note.trim() ? { note: note.trim() } : {}),
            isPremium,
            noHwidValidation,
            maxHwids: Number(maxHwids),
            ...(chatId.trim() ? { chatId: chatId.trim() } : {}),
          },
        }),
      ),
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      setCreated(data.keys.map((k) => k.key));
      notifySuccess(`${data.keys.length} key${data.keys.length === 1 ? '' : 's'} generated`);
    },
  });
  const close = () => {
    setCreated(null);
    generate.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    generate.mutate();
  };
  return (
    <Modal opened={opened} onClose={close} title="Generate keys" centered size="lg">
      {created ? (
        <Stack>
          <Text size="sm">New keys (they are also in the table):</Text>
          <Textarea aria-label="New keys" readOnly autosize maxRows={12} value={created.join('\n')} ff="monospace" />
          <Group justify="flex-end">
            <CopyAction
              value={created.join('\n')}
              label={created.length === 1 ? 'Copy key' : 'Copy keys'}
              variant="filled"
              copiedMessage={created.length === 1 ? 'Key copied' : `${created.length} keys copied`}
            />
            <Button variant="default" onClick={close}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <NativeSelect
              label="Expiration"
              value={expirationType}
              onChange={(e) => setExpirationType(e.currentTarget.value as typeof expirationType)}
              data={[
                { value: 'byDays', label: 'Days' },
                { value: 'byDate', label: 'Date' },
                { value: 'lifetime', label: 'Lifetime' },
              ]}
            />
            {expirationType === 'byDays' && (
              <NumberInput label="Days" min={1} max={3650} value={days} onChange={setDays} required allowDecimal={false} />
            )}
            {expirationType === 'byDate' && (
              <TextInput label="Expires at" type="datetime-local" value={date} onChange={(e) => setDate(e.currentTarget.value)} required />
            )}
            <NumberInput label="Count" min={1} max={1000} value={count} onChange={setCount} required allowDecimal={false} />
            <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
            <NumberInput label="Max HWIDs" min={1} max={100} value={maxHwids} onChange={setMaxHwids} allowDecimal={false} />
            <TextInput
              label="Chat user id"
              description="17–20 digits, optional"
              value={chatId}
              onChange={(e) => setChatId(e.currentTarget.value)}
            />
            <Checkbox label="Premium" checked={isPremium} onChange={(e) => setPremium(e.currentTarget.checked)} />
            <Checkbox label="No HWID validation" checked={noHwidValidation} onChange={(e) => setNoHwid(e.currentTarget.checked)} />
            {generate.error && (
              <Text c="red" size="sm" role="alert">
                {messageOf(generate.error)}
              </Text>
            )}
            <Group justify="flex-end">
              <Button type="submit" loading={generate.isPending}>
                Generate
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
