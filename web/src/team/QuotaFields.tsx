import { Group, SimpleGrid, Switch, TextInput } from '@mantine/core';
import { describePolicy, policyOf, type QuotaLike } from '../keys/resellerPolicy';

// A reseller's quota and key policy as the owner types them (contract §17, §25): on the invite form and when changing
// a member's quota.

/** The fields as typed: an empty "longest key" is any length, an empty "devices at once" leaves it to the reseller. */
export interface QuotaText {
  keysLeft: string;
  maxDays: string;
  allowLifetime: boolean;
  maxHwids: string;
  allowNoHwidValidation: boolean;
  allowPremium: boolean;
  maxSessions: string;
}

/** What the server gives a reseller invited without a quota (contract §17, §25): the form starts there. */
export const DEFAULT_QUOTA: QuotaText = {
  keysLeft: '10',
  maxDays: '',
  allowLifetime: false,
  maxHwids: '1',
  allowNoHwidValidation: false,
  allowPremium: false,
  maxSessions: '',
};

const orNull = (text: string) => (text.trim() === '' ? null : Number(text));

const valuesOf = (q: QuotaText) => ({
  keysLeft: Number(q.keysLeft),
  maxDays: orNull(q.maxDays),
  allowLifetime: q.allowLifetime,
  maxHwids: Number(q.maxHwids),
  allowNoHwidValidation: q.allowNoHwidValidation,
  allowPremium: q.allowPremium,
  maxSessions: orNull(q.maxSessions),
});
export type QuotaBody = Partial<ReturnType<typeof valuesOf>>;

/**
 * The fields of `typed` that differ from `from`: a member's change sends only what the owner changed, so it never
 * writes back a keysLeft the reseller has spent since the page loaded (contract §27).
 */
export function changedQuota(typed: QuotaText, from: QuotaText): QuotaBody {
  const next = valuesOf(typed);
  const before = valuesOf(from);
  return Object.fromEntries(Object.entries(next).filter(([field, value]) => before[field as keyof typeof before] !== value));
}

/** The key policy a reseller gets when the invite names none (contract §25). */
const POLICY_DEFAULTS: QuotaText = { ...DEFAULT_QUOTA, maxHwids: '1', allowNoHwidValidation: false, allowPremium: false, maxSessions: '' };

/**
 * An invite's quota: keys, length and lifetime always; a policy field only when it differs from the server's default
 * (the server fills the rest with its defaults).
 */
export function inviteQuota(typed: QuotaText): QuotaBody {
  const { keysLeft, maxDays, allowLifetime } = valuesOf(typed);
  return { ...changedQuota(typed, POLICY_DEFAULTS), keysLeft, maxDays, allowLifetime };
}

/** A quota from the server as the form's text; a field a server from before §25 leaves out reads as its default. */
export function quotaText(q: QuotaLike): QuotaText {
  const p = policyOf(q);
  return {
    keysLeft: String(p.keysLeft),
    maxDays: p.maxDays === null ? '' : String(p.maxDays),
    allowLifetime: p.allowLifetime,
    maxHwids: String(p.maxHwids ?? 1),
    allowNoHwidValidation: p.allowNoHwidValidation ?? false,
    allowPremium: p.allowPremium ?? false,
    maxSessions: p.maxSessions === null ? '' : String(p.maxSessions),
  };
}

/** "5 keys left, keys up to 30 days, no lifetime keys, …": a quota in one line. */
export function describeQuota(q: QuotaLike): string {
  const p = policyOf(q);
  return [`${p.keysLeft.toLocaleString()} key${p.keysLeft === 1 ? '' : 's'} left`, ...describePolicy(p)].join(', ');
}

export function QuotaFields({ value, onChange }: { value: QuotaText; onChange: (q: QuotaText) => void }) {
  const text = (field: 'keysLeft' | 'maxDays' | 'maxHwids' | 'maxSessions') => ({
    inputMode: 'numeric' as const,
    value: value[field],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => onChange({ ...value, [field]: e.currentTarget.value }),
  });
  const flag = (field: 'allowLifetime' | 'allowNoHwidValidation' | 'allowPremium') => ({
    checked: value[field],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => onChange({ ...value, [field]: e.currentTarget.checked }),
  });
  return (
    <>
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs">
        <TextInput label="Keys it may generate" {...text('keysLeft')} />
        <TextInput label="Longest key, in days" description="Empty: any length" {...text('maxDays')} />
        <TextInput label="HWIDs per key, at most" description="1 to 100" {...text('maxHwids')} />
        <TextInput label="Devices at once, at most" description="Empty: the reseller chooses" {...text('maxSessions')} />
      </SimpleGrid>
      <Group gap="md" wrap="wrap">
        <Switch label="May make lifetime keys" {...flag('allowLifetime')} />
        <Switch label="May turn off the HWID check" {...flag('allowNoHwidValidation')} />
        <Switch label="May make premium keys" {...flag('allowPremium')} />
      </Group>
    </>
  );
}
