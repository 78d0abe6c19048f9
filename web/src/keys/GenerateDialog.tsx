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
import { describePolicy, NO_KEYS_LEFT, type ResellerPolicy } from './resellerPolicy';

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

const EXPIRATIONS: { value: ExpirationType; label: string }[] = [
  { value: 'byDays', label: 'Days' },
  { value: 'byDate', label: 'Date' },
  { value: 'lifetime', label: 'Lifetime' },
  { value: 'afterRedeem', label: 'Starts when redeemed' },
];

/**
 * The ranges a caller may ask for: the server's own, narrowed by a reseller's quota and key policy (contract §17, §25),
 * so the form offers only what the server would accept from it.
 */
export function rangesFor(policy: ResellerPolicy | null) {
  if (!policy) return GENERATE_RANGES;
  const cap = (range: { label: string; min: number; max: number }, max: number | null, min = range.min) =>
    max === null ? { ...range, min } : { ...range, min, max: Math.min(range.max, max) };
  return {
    days: cap(GENERATE_RANGES.days, policy.maxDays),
    count: cap(GENERATE_RANGES.count, policy.keysLeft),
    maxHwids: cap(GENERATE_RANGES.maxHwids, policy.maxHwids),
    // A policy's device cap leaves out 0 (no limit): 1 up to the cap.
    maxSessions: policy.maxSessions === null ? GENERATE_RANGES.maxSessions : cap(GENERATE_RANGES.maxSessions, policy.maxSessions, 1),
  };
}

/**
 * "Generate keys": the form of POST /keys/api/generate, then the new keys to copy. `policy`: the caller is a reseller
 * and may ask only for what its quota and key policy allow; mounted when opened, so its defaults follow that policy.
 */
export function GenerateDialog({
  opened,
  onClose,
  serviceId,
  policy = null,
}: {
  opened: boolean;
  onClose: () => void;
  serviceId: string;
  policy?: ResellerPolicy | null;
}) {
  const queryClient = useQueryClient();
  const ranges = rangesFor(policy);
  const [expirationType, setExpirationType] = useState<ExpirationType>('byDays');
  const [days, setDays] = useState<number | string>(Math.min(30, ranges.days.max));
  const [date, setDate] = useState('');
  const [count, setCount] = useState<number | string>(1);
  const [note, setNote] = useState('');
  const [isPremium, setPremium] = useState(false);
  const [noHwidValidation, setNoHwid] = useState(false);
  const [maxHwids, setMaxHwids] = useState<number | string>(1);
  const [maxSessions, setMaxSessions] = useState<number | string>(policy?.maxSessions ?? 0);
  const [chatId, setChatId] = useState('');
  const [created, setCreated] = useState<string[] | null>(null);
  const [tried, setTried] = useState(false);
  const pastDate = expirationType === 'byDate' && date !== '' && new Date(date).getTime() <= Date.now();
  // The server counts a byDate key's days from now, rounded up (contract §17): a date beyond maxDays is refused.
  const tooFar =
    expirationType === 'byDate' &&
    date !== '' &&
    policy?.maxDays != null &&
    new Date(date).getTime() > Date.now() + policy.maxDays * 86_400_000;
  const problem = firstProblem(
    USES_DAYS.has(expirationType) ? rangeProblem(days, ranges.days) : null,
    pastDate ? 'The expiry date is in the past: choose a later date.' : null,
    tooFar ? `Your keys may last at most ${policy?.maxDays} days: choose an earlier date.` : null,
    rangeProblem(count, ranges.count),
    rangeProblem(maxHwids, ranges.maxHwids),
    rangeProblem(maxSessions, ranges.maxSessions),
  );
  const expirations = EXPIRATIONS.filter((e) => e.value !== 'lifetime' || !policy || policy.allowLifetime);
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
      {policy && policy.keysLeft === 0 && !created ? (
        <Stack>
          <Text role="alert">{NO_KEYS_LEFT}.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Close
            </Button>
          </Group>
        </Stack>
      ) : created ? (
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
            {policy && (
              <Text size="sm" c="dimmed">
                Your quota:{' '}
                {[`${policy.keysLeft.toLocaleString()} key${policy.keysLeft === 1 ? '' : 's'} left`, ...describePolicy(policy)].join(', ')}.
              </Text>
            )}
            <NativeSelect
              label="Expiration"
              value={expirationType}
              onChange={(e) => setExpirationType(e.currentTarget.value as typeof expirationType)}
              data={expirations}
            />
            {USES_DAYS.has(expirationType) && (
              <RangeInput
                range={ranges.days}
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
                error={
                  pastDate ? 'This date is in the past: choose a later one.' : tooFar ? `At most ${policy?.maxDays} days from now.` : null
                }
              />
            )}
            <RangeInput range={ranges.count} value={count} onChange={setCount} showEmpty={tried} required />
            <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
            <RangeInput range={ranges.maxHwids} value={maxHwids} onChange={setMaxHwids} showEmpty={tried} />
            <RangeInput
              range={ranges.maxSessions}
              value={maxSessions}
              onChange={setMaxSessions}
              showEmpty={tried}
              description={policy?.maxSessions != null ? `Up to ${policy.maxSessions}, as your quota allows` : MAX_SESSIONS_HINT}
            />
            <BuyerFields
              chatId={chatId}
              onChatId={setChatId}
              chatIdHint="Optional: the buyer's Discord user id (17–20 digits), for the Discord commands"
              isPremium={isPremium}
              onPremium={setPremium}
              noHwidValidation={noHwidValidation}
              onNoHwid={setNoHwid}
              // A reseller's policy may leave these out (contract §25): not offered, rather than refused on submit.
              showPremium={policy?.allowPremium !== false}
              showNoHwid={policy?.allowNoHwidValidation !== false}
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
