import { useState } from 'react';

/**
 * The state of NewAccountFields, for the Register page and an invite's sign-up: the props to spread on the fields, the
 * body the register routes take (null until the captcha is solved), and `retry` for after a refused attempt (a captcha
 * payload is spent by one attempt, so the next needs a new challenge).
 */
export function useNewAccount() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [captcha, setCaptcha] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  return {
    fields: { username, onUsername: setUsername, password, onPassword: setPassword, onCaptcha: setCaptcha, captchaGeneration: generation },
    body: captcha ? { username: username.trim(), password, captcha } : null,
    retry: () => setGeneration((g) => g + 1),
  };
}
