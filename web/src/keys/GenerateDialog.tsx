import { useState, type FormEvent } from 'react';
import { MONO_INPUT } from '../components/monoInput';
import { Button, Group, Modal, NativeSelect, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { CopyAction } from '../components/CopyAction';
import { notifySuccess } from '../components/notify';
import { RangeInput } from '../components/RangeInput';
import { firstProblem, rangeProblem } from '../lib/numbers';
import { BuyerFields, FormErrors } from './KeyFormParts';

/** The ranges the server accepts (contract §4, §7.1): refused in the form, never clamped. */
export const GENERATE_RANGES = {
  days: { label: 'Days', min: 1, max: 3650 },
  count: { label: 'Count', min: 1, max: 1000 },
  maxHwids: { label: 'Max HWIDs', min: 1, max: 100 },
  maxSessions: { label: 'Devices at once', min: 0, max: 100 },
};

/** Contract §18 in plain words: what maxSessions does, under its field in Generate and the key editor. */
export const MAX_SESSIONS_HINT = 'How many devices may run the key at the same time; 0 means no limit';

type ExpirationType = 'byDays' | 'byDate' | 'lifetime' | 'afterRedeem';
/** Contract §12.1: `afterRedeem` counts its days from the redemption; the generated key has no expiry until then. */
const USES_DAYS: ReadonlySet<ExpirationType> = new Set(['byDays', 'afterRedeem']);

/** "Generate keys": the form of POST /keys/api/generate, then the new keys to copy. */
export function GenerateDialog({ opened, onClose, serviceId }: { opened: boolean; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [expirationType, setExpirationType] = useState<ExpirationType>('byDays');
  const [days, setDays] = useState<number | string>(30);
  const [date, setDate] = useState('');
  const [count, setCount] = useState<number | string>(1);
  const [note, setNote] = useState('');
  const [isPremium, setPremium] = useState(false);
  const [noHwidValidation, setNoHwid] = useState(false);
  const [maxHwids, setMaxHwids] = useState<number | string>(1);
  const [maxSessions, setMaxSessions] = useState<number | string>(0);
  const [chatId, setChatId] = useState('');
  const [created, setCreated] = useState<string[] | null>(null);
  const [tried, setTried] = useState(false);
  const pastDate = expirationType === 'byDate' && date !== '' && new Date(date).getTime() <= Date.now();
  const problem = firstProblem(
    USES_DAYS.has(expirationType) ? rangeProblem(days, GENERATE_RANGES.days) : null,
    pastDate ? 'The expiry date is in the past: choose a later date.' : null,
    rangeProblem(count, GENERATE_RANGES.count),
    rangeProblem(maxHwids, GENERATE_RANGES.maxHwids),
    rangeProblem(maxSessions, GENERATE_RANGES.maxSessions),
  );
  const generate = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/keys/api/generate', {
          headers: serviceHeaders(serviceId),
          // afterRedeem (contract §12.1) may be missing from this build's generated schema: typed against the contract.
          body: {
            expirationType: expirationType as 'byDays',
            count: Number(count),
            ...(USES_DAYS.has(expirationType) ? { days: Number(days) } : {}),
            ...(expirationType === 'byDate' ? { expiresAt: date ? new Date(date).toISOString() : '' } : {}),
            ...(note.trim() ? { note: note.trim() } : {}),
            isPremium,
            noHwidValidation,
            maxHwids: Number(maxHwids),
            maxSessions: Number(maxSessions),
            ...(chatId.trim() ? { chatId: chatId.trim() } : {}),
          },
        }),
      ),
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      // A reseller's quota went down (contract §17).
      void queryClient.invalidateQueries({ queryKey: ['reseller', serviceId] });
      setCreated(data.keys.map((k) => k.key));
      notifySuccess(`${data.keys.length} key${data.keys.length === 1 ? '' : 's'} generated`);
    },
  });
  const close = () => {
    setCreated(null);
    setTried(false);
    generate.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    // Out of range: nothing is sent, the sentence under the field says why (never a silent 1 for a 0).
    if (problem) return;
    generate.mutate();
  };
  return (
    <Modal opened={opened} onClose={close} title="Generate keys" centered size="lg">
      {created ? (
        <Stack>
          <Text size="sm">New keys (they are also in the table):</Text>
          <Textarea aria-label="New keys" readOnly autosize maxRows={12} value={created.join('\n')} styles={MONO_INPUT} />
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
                { value: 'afterRedeem', label: 'Starts when redeemed' },
              ]}
            />
            {USES_DAYS.has(expirationType) && (
              <RangeInput
                range={GENERATE_RANGES.days}
                value={days}
                onChange={setDays}
                showEmpty={tried}
                required
                description={expirationType === 'afterRedeem' ? 'Counted from the moment the buyer first uses the key' : undefined}
              />
            )}
            {expirationType === 'byDate' && (
              <TextInput
                label="Expires at"
                type="datetime-local"
                value={date}
                onChange={(e) => setDate(e.currentTarget.value)}
                required
                error={pastDate ? 'This date is in the past: choose a later one.' : null}
              />
            )}
            <RangeInput range={GENERATE_RANGES.count} value={count} onChange={setCount} showEmpty={tried} required />
            <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
            <RangeInput range={GENERATE_RANGES.maxHwids} value={maxHwids} onChange={setMaxHwids} showEmpty={tried} />
            <RangeInput
              range={GENERATE_RANGES.maxSessions}
              value={maxSessions}
              onChange={setMaxSessions}
              showEmpty={tried}
              description={MAX_SESSIONS_HINT}
            />
            <BuyerFields
              chatId={chatId}
              onChatId={setChatId}
              chatIdHint="Optional: the buyer's Discord user id (17–20 digits), for the Discord commands"
              isPremium={isPremium}
              onPremium={setPremium}
              noHwidValidation={noHwidValidation}
              onNoHwid={setNoHwid}
            />
            <FormErrors problem={tried ? problem : null} error={generate.error} />
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
