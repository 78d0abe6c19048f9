import { Checkbox, Text, TextInput } from '@mantine/core';
import { messageOf } from '../api/client';

/** The one wording of what the premium flag does, wherever it is shown or set. */
export const PREMIUM_MEANS = 'Shorter HWID reset cooldown (the premium cooldown in Settings)';

/**
 * The fields "Generate keys" and the key editor share, so a label or hint changed in one cannot drift from the other
 * (contract §9 names "Premium"; browser tests find the rest by the same names in both forms).
 */
export function BuyerFields(props: {
  chatId: string;
  onChatId: (value: string) => void;
  chatIdHint: string;
  isPremium: boolean;
  onPremium: (value: boolean) => void;
  noHwidValidation: boolean;
  onNoHwid: (value: boolean) => void;
  /** False where the caller may not set the flag (a reseller's key policy, contract §25): the box is not shown. */
  showPremium?: boolean;
  showNoHwid?: boolean;
}) {
  return (
    <>
      <TextInput
        label="Discord user id"
        description={props.chatIdHint}
        value={props.chatId}
        onChange={(e) => props.onChatId(e.currentTarget.value)}
      />
      {/* What the flag does, beside its name (contract §27): Luarmor's LRM_IsUserPremium means something else. */}
      {props.showPremium !== false && (
        <Checkbox
          label="Premium"
          description={PREMIUM_MEANS}
          checked={props.isPremium}
          onChange={(e) => props.onPremium(e.currentTarget.checked)}
        />
      )}
      {props.showNoHwid !== false && (
        <Checkbox label="No HWID validation" checked={props.noHwidValidation} onChange={(e) => props.onNoHwid(e.currentTarget.checked)} />
      )}
    </>
  );
}

/** The form's own sentence (after a first submit) and the server's refusal, each read out as an alert. */
export function FormErrors({ problem, error }: { problem: string | null; error: unknown }) {
  return (
    <>
      {problem && (
        <Text c="red" size="sm" role="alert">
          {problem}
        </Text>
      )}
      {error ? (
        <Text c="red" size="sm" role="alert">
          {messageOf(error)}
        </Text>
      ) : null}
    </>
  );
}
