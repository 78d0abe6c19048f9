import { useState } from 'react';
import { Badge, Button, Checkbox, Drawer, Group, NativeSelect, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, serviceHeaders, unwrap } from '../api/client';
import { CopyAction } from '../components/CopyAction';
import { notifySuccess } from '../components/notify';
import { RangeInput } from '../components/RangeInput';
import { rangeProblem } from '../lib/numbers';
import { GENERATE_RANGES, MAX_SESSIONS_HINT, rangesFor } from './GenerateDialog';
import { KeySessions } from './KeySessions';
import type { KeyRecord } from './records';
import { keyState } from './KeysTable';
import { BuyerFields, FormErrors, PREMIUM_MEANS } from './KeyFormParts';
import { KEY_STATUS_OPTIONS } from '../lib/labels';
import { describeKeyExpiry, formatTime, waitingLength } from './types';
import { useServiceAccess } from '../services/access';
import { useResellerPolicy, type ResellerPolicy } from './resellerPolicy';

/** A key's details and its edit form, opened from the key string in the table. */
export function KeyDrawer({ record, onClose, serviceId }: { record: KeyRecord | null; onClose: () => void; serviceId: string }) {
  const access = useServiceAccess(serviceId);
  // A reseller changes its own keys' HWIDs, HWID check, premium and devices at once within its key policy (§25).
  const policy = useResellerPolicy(serviceId, access.role === 'reseller' && access.can('keys.policy'));
  return (
    <Drawer opened={record !== null} onClose={onClose} title={record ? `Key ${record.key}` : ''} position="right" size="md">
      {record && (
        <KeyEditor
          key={record.key}
          record={record}
          serviceId={serviceId}
          onSaved={onClose}
          manage={access.can('keys.manage')}
          policy={policy}
          endSessions={access.can('service.configure')}
        />
      )}
    </Drawer>
  );
}

const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** `manage`: the role may change the key's terms (contract §17); support staff and resellers edit only status, note, HWID and Discord user. */
function KeyEditor(props: {
  record: KeyRecord;
  serviceId: string;
  onSaved: () => void;
  manage: boolean;
  /** A reseller's key policy: its four terms are editable within it (contract §25). */
  policy: ResellerPolicy | null;
  endSessions: boolean;
}) {
  const { record, serviceId, onSaved, manage, policy, endSessions } = props;
  const policyEdit = !manage && policy !== null;
  const policyRanges = rangesFor(policy);
  const queryClient = useQueryClient();
  const [note, setNote] = useState(record.note ?? '');
  const [status, setStatus] = useState(record.status);
  // Contract §19: a ban's reason (shown to the buyer) and end (empty = for good), for active keys.
  const recordBan = record.type === 'active' ? record : null;
  const [banReason, setBanReason] = useState(recordBan?.banReason ?? '');
  const [banEnd, setBanEnd] = useState(toLocalInput(recordBan?.banExpiresAt ?? null));
  const [isPremium, setPremium] = useState(record.isPremium);
  const [noHwidValidation, setNoHwid] = useState(record.noHwidValidation);
  const [maxHwids, setMaxHwids] = useState<number | string>(record.maxHwids ?? 1);
  // A key whose time starts at redemption has no date yet and is not lifetime: its editor shows its length instead.
  // So is a key bound before its first use (contract §23): its time starts at its first validation.
  const afterRedeemDays = record.durationDays ?? null;
  const [lifetime, setLifetime] = useState(record.expiresAt === null && afterRedeemDays === null);
  const [maxSessions, setMaxSessions] = useState<number | string>(record.maxSessions ?? 0);
  const [expiresAt, setExpiresAt] = useState(toLocalInput(record.expiresAt));
  const [chatId, setChatId] = useState(record.chatId ?? '');
  const boundHwid = record.type === 'active' ? (record.hwid ?? '') : '';
  const [hwid, setHwid] = useState(boundHwid);
  // The field edits one HWID: the key's others are named beside it, never hidden (contract §26).
  const otherHwids = record.type === 'active' ? (record.hwids ?? []).filter((h) => h !== boundHwid) : [];
  const active = record.type === 'active';
  const [tried, setTried] = useState(false);
  // The expiry is sent only when the seller changed it: the form shows it to the minute, and saving a note
  // must not re-save the stored expiry rounded down to that minute.
  const expiryChanged =
    afterRedeemDays === null && (lifetime !== (record.expiresAt === null) || (!lifetime && expiresAt !== toLocalInput(record.expiresAt)));
  const pastExpiry = expiryChanged && !lifetime && expiresAt !== '' && new Date(expiresAt).getTime() <= Date.now();
  // A reseller's key may hold terms from before its policy: only a term it changes is held to the policy.
  const policyChanges = {
    ...(Number(maxHwids) !== (record.maxHwids ?? 1) ? { maxHwids: Number(maxHwids) } : {}),
    ...(Number(maxSessions) !== (record.maxSessions ?? 0) ? { maxSessions: Number(maxSessions) } : {}),
    ...(isPremium !== record.isPremium ? { isPremium } : {}),
    ...(noHwidValidation !== record.noHwidValidation ? { noHwidValidation } : {}),
  };
  const problem = pastExpiry
    ? 'The expiry date is in the past: choose a later date (to stop the key now, set its status to paused or banned).'
    : policyEdit
      ? (('maxHwids' in policyChanges ? rangeProblem(maxHwids, policyRanges.maxHwids) : null) ??
        ('maxSessions' in policyChanges ? rangeProblem(maxSessions, policyRanges.maxSessions) : null))
      : (rangeProblem(maxHwids, GENERATE_RANGES.maxHwids) ?? rangeProblem(maxSessions, GENERATE_RANGES.maxSessions));
  const save = useMutation({
    mutationFn: async () => {
      // The status goes only when it (or the ban's reason or end) changed: a ban is written whole, so re-sending it
      // without its reason would clear the reason.
      const banChanged =
        status === 'banned' && (banReason !== (recordBan?.banReason ?? '') || banEnd !== toLocalInput(recordBan?.banExpiresAt ?? null));
      const statusChanged = status !== record.status || (active && banChanged);
      const ban =
        active && statusChanged && status === 'banned'
          ? { banReason: banReason.trim() || null, banExpiresAt: banEnd ? new Date(banEnd).toISOString() : null }
          : {};
      const headers = serviceHeaders(serviceId);
      const support = {
        key: record.key,
        note,
        ...(statusChanged ? { status } : {}),
        chatId: chatId.trim() || null,
        ...(policyEdit ? policyChanges : {}),
      };
      if (!manage) {
        const changedHwid = active && hwid.trim() !== boundHwid ? { hwid: hwid.trim() || null } : {};
        if (active) return unwrap(await api.PUT('/api/v1/keys/api/key', { headers, body: { ...support, ...ban, ...changedHwid } }));
        return unwrap(await api.PUT('/api/v1/keys/api/generated-key', { headers, body: support }));
      }
      const shared = { ...support, isPremium, noHwidValidation, maxHwids: Number(maxHwids), maxSessions: Number(maxSessions) };
      const newExpiry = expiryChanged && !lifetime && expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {};
      if (active) {
        const body = {
          ...shared,
          ...ban,
          ...(expiryChanged && lifetime ? { expiresAt: null } : newExpiry),
          ...(hwid.trim() !== boundHwid ? { hwid: hwid.trim() || null } : {}),
        };
        return unwrap(await api.PUT('/api/v1/keys/api/key', { headers, body }));
      }
      // A lifetime generated key stays lifetime (the API refuses null there); otherwise send what the form says.
      return unwrap(await api.PUT('/api/v1/keys/api/generated-key', { headers, body: { ...shared, ...newExpiry } }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['keys', serviceId] });
      notifySuccess('Key saved');
      onSaved();
    },
  });
  return (
    <Stack>
      <Group gap="xs">
        <Badge variant="light" color={keyState(record).color}>
          {keyState(record).label}
        </Badge>
        <CopyAction value={record.key} label="Copy key" size="xs" copiedMessage="Key copied" />
      </Group>
      <Table fz="sm" variant="vertical" aria-label="Key details">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>Created</Table.Th>
            <Table.Td>{formatTime(record.createdAt)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Expires</Table.Th>
            <Table.Td>
              {record.expiresAt ? `${formatTime(record.expiresAt)} (${describeKeyExpiry(record)})` : describeKeyExpiry(record)}
            </Table.Td>
          </Table.Tr>
          {active && (
            <Table.Tr>
              <Table.Th>Activated</Table.Th>
              <Table.Td>{formatTime(record.activatedAt)}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>Last used</Table.Th>
              <Table.Td>{formatTime(record.lastUsedAt)}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>Executions</Table.Th>
              <Table.Td>{record.executions ?? 0}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>HWIDs</Table.Th>
              <Table.Td>{record.hwids?.length ? record.hwids.join(', ') : 'none'}</Table.Td>
            </Table.Tr>
          )}
          {active && (
            <Table.Tr>
              <Table.Th>HWID resets</Table.Th>
              <Table.Td>
                {record.hwidResetCount ?? 0} (last {formatTime(record.hwidResetAt)})
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      {active && <KeySessions serviceId={serviceId} keyString={record.key} canEnd={endSessions} />}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          if (problem) return;
          save.mutate();
        }}
      >
        <Stack>
          <TextInput label="Note" maxLength={256} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
          <NativeSelect
            label="Status"
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as KeyRecord['status'])}
            data={KEY_STATUS_OPTIONS}
          />
          {active && status === 'banned' && (
            <>
              <TextInput
                label="Ban reason"
                description="Shown to the buyer when the key is refused"
                maxLength={256}
                value={banReason}
                onChange={(e) => setBanReason(e.currentTarget.value)}
              />
              <TextInput
                type="datetime-local"
                label="Ban ends"
                description="Empty bans for good; at this time the key works again by itself"
                value={banEnd}
                onChange={(e) => setBanEnd(e.currentTarget.value)}
              />
            </>
          )}
          {active && (
            <TextInput
              label={otherHwids.length ? 'First HWID' : 'HWID'}
              description={
                otherHwids.length
                  ? `Also bound: ${otherHwids.join(', ')}. A new value here replaces all of them; empty unbinds every HWID`
                  : 'Empty unbinds every HWID'
              }
              value={hwid}
              onChange={(e) => setHwid(e.currentTarget.value)}
            />
          )}
          {!manage && (
            <TextInput
              label="Discord user"
              description="The buyer's Discord user id (17–20 digits); empty unlinks"
              value={chatId}
              onChange={(e) => setChatId(e.currentTarget.value)}
            />
          )}
          {policyEdit && policy && (
            <>
              <RangeInput range={policyRanges.maxHwids} value={maxHwids} onChange={setMaxHwids} showEmpty />
              <RangeInput
                range={policyRanges.maxSessions}
                value={maxSessions}
                onChange={setMaxSessions}
                showEmpty
                description={policy.maxSessions !== null ? `Up to ${policy.maxSessions}, as your quota allows` : MAX_SESSIONS_HINT}
              />
              {policy.allowPremium !== false && (
                <Checkbox
                  label="Premium"
                  description={PREMIUM_MEANS}
                  checked={isPremium}
                  onChange={(e) => setPremium(e.currentTarget.checked)}
                />
              )}
              {policy.allowNoHwidValidation !== false && (
                <Checkbox label="No HWID validation" checked={noHwidValidation} onChange={(e) => setNoHwid(e.currentTarget.checked)} />
              )}
            </>
          )}
          {manage && (
            <>
              <RangeInput range={GENERATE_RANGES.maxHwids} value={maxHwids} onChange={setMaxHwids} showEmpty />
              <RangeInput
                range={GENERATE_RANGES.maxSessions}
                value={maxSessions}
                onChange={setMaxSessions}
                showEmpty
                description={MAX_SESSIONS_HINT}
              />
              {afterRedeemDays !== null ? (
                <Text size="sm" data-testid="after-redeem">
                  Runs {waitingLength(record)}: its expiry date is set when a buyer first uses it.
                </Text>
              ) : (
                <>
                  <Switch
                    label="Lifetime"
                    checked={lifetime}
                    onChange={(e) => setLifetime(e.currentTarget.checked)}
                    disabled={!active && record.expiresAt !== null}
                    description={
                      !active && record.expiresAt !== null
                        ? 'A key not used yet keeps an expiry date; it can be made lifetime once a buyer has used it (or generate a lifetime key).'
                        : undefined
                    }
                  />
                  {!lifetime && (
                    <TextInput
                      label="Expires at"
                      type="datetime-local"
                      value={expiresAt}
                      onChange={(e) => setExpiresAt(e.currentTarget.value)}
                      required
                      error={pastExpiry ? 'This date is in the past.' : null}
                    />
                  )}
                </>
              )}
              <BuyerFields
                chatId={chatId}
                onChatId={setChatId}
                chatIdHint="The buyer's Discord user id (17–20 digits); empty unlinks"
                isPremium={isPremium}
                onPremium={setPremium}
                noHwidValidation={noHwidValidation}
                onNoHwid={setNoHwid}
              />
            </>
          )}
          <FormErrors problem={tried ? problem : null} error={save.error} />
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
