import { Checkbox, Text, TextInput } from '@mantine/core';
import { messageOf } from '../api/client';

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
}) {
  return (
    <>
      <TextInput
        label="Discord user id"
        description={props.chatIdHint}
        value={props.chatId}
        onChange={(e) => props.onChatId(e.currentTarget.value)}
      />
      <Checkbox label="Premium" checked={props.isPremium} onChange={(e) => props.onPremium(e.currentTarget.checked)} />
      <Checkbox label="No HWID validation" checked={props.noHwidValidation} onChange={(e) => props.onNoHwid(e.currentTarget.checked)} />
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
