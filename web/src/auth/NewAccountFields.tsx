import { PasswordInput, TextInput } from '@mantine/core';
import { Captcha } from './Captcha';

/** The fields a new account is made from, with the server's rules in words: the Register page's and an invite's. */
export function NewAccountFields(props: {
  username: string;
  onUsername: (value: string) => void;
  password: string;
  onPassword: (value: string) => void;
  onCaptcha: (solution: string | null) => void;
  /** Bumped after a refused attempt: the captcha is solved again. */
  captchaGeneration: number;
}) {
  return (
    <>
      <TextInput
        label="Username"
        description="3 to 32 letters, digits, _ . -"
        value={props.username}
        onChange={(e) => props.onUsername(e.currentTarget.value)}
        autoComplete="username"
        required
      />
      <PasswordInput
        label="Password"
        description="At least 10 characters"
        value={props.password}
        onChange={(e) => props.onPassword(e.currentTarget.value)}
        autoComplete="new-password"
        required
      />
      <Captcha onSolved={props.onCaptcha} generation={props.captchaGeneration} />
    </>
  );
}
