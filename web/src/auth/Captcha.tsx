import { useEffect, useRef, useState } from 'react';
import { Text } from '@mantine/core';
import 'altcha';
import { api, messageOf, unwrap } from '../api/client';

/**
 * The ALTCHA widget on a challenge from GET /auth/captcha (the API wraps it in its envelope, so the
 * widget gets it as `challengejson`). `onSolved(null)` when a new challenge replaces a solved one.
 * Changing `generation` fetches a fresh challenge (a payload is spent by one sign-in attempt).
 */
export function Captcha({ onSolved, generation }: { onSolved: (payload: string | null) => void; generation: number }) {
  const holder = useRef<HTMLDivElement>(null);
  const solved = useRef(onSolved);
  solved.current = onSolved;
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    const element = holder.current;
    if (!element) return;
    solved.current(null);
    setError(null);
    api
      .GET('/api/v1/auth/captcha')
      .then((result) => {
        if (cancelled) return;
        const challenge = unwrap(result);
        const widget = document.createElement('altcha-widget');
        widget.setAttribute('challengejson', JSON.stringify(challenge));
        widget.setAttribute('hidelogo', '');
        widget.setAttribute('hidefooter', '');
        widget.addEventListener('statechange', (event) => {
          const detail = (event as CustomEvent<{ state: string; payload?: string }>).detail;
          solved.current(detail?.state === 'verified' && detail.payload ? detail.payload : null);
        });
        element.replaceChildren(widget);
      })
      .catch((err: unknown) => !cancelled && setError(messageOf(err)));
    return () => {
      cancelled = true;
      element.replaceChildren();
    };
  }, [generation]);

  return (
    <div>
      <div ref={holder} />
      {error && (
        <Text c="red" size="sm" role="alert">
          Could not load the captcha: {error}
        </Text>
      )}
    </div>
  );
}
