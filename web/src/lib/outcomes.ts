/**
 * What a seller reads after "Send test message". The server answers 202 `queued` for every failure it
 * will retry; the outbox's `lastError` says which one, so the sentence is true: an address that does not
 * resolve is not "the platform asked to retry later". Pure: unit-tested.
 */
export function describeTestOutcome(delivered: boolean, lastError: string | null | undefined): string {
  if (delivered) return 'Test message delivered';
  const error = lastError ?? '';
  if (
    /cannot resolve|has no address|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|no answer within|timed? ?out/i.test(
      error,
    )
  ) {
    return 'The webhook address could not be reached. The message is queued and will be retried; check the address if this keeps happening.';
  }
  if (/HTTP 429/.test(error)) return 'Discord asked to slow down: the message is queued and will be sent shortly.';
  if (/HTTP 5\d\d/.test(error)) return 'Discord had a temporary problem: the message is queued and will be retried.';
  if (error === '') return 'Earlier messages are still waiting: this one is queued behind them.';
  return `The message could not be sent yet (${error}): it is queued and will be retried.`;
}

const VERBS: Record<string, string> = {
  delete: 'deleted',
  ban: 'banned',
  pause: 'paused',
  activate: 'activated',
  resetHwid: 'reset',
  extend: 'extended',
  setNote: 'given the note',
  move: 'moved',
};

/**
 * The toast after a bulk action. "Skipped" keys are said with their reason: a reset skips keys that hold
 * no HWID (never used, or already reset), an extension skips lifetime keys.
 */
export function describeBulkResult(result: { action: string; updated: number; notFound: string[]; skipped: string[] }): string {
  const n = (count: number) => `${count} key${count === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (result.updated > 0 || result.skipped.length === 0) parts.push(`${n(result.updated)} ${VERBS[result.action] ?? 'updated'}`);
  if (result.skipped.length > 0) {
    const count = result.skipped.length;
    if (result.action === 'resetHwid') {
      parts.push(
        `${count === 1 ? 'no HWID to clear on 1 key' : `no HWID to clear on ${count} keys`}: not used on a device yet, or already reset`,
      );
    } else if (result.action === 'extend') parts.push(`${n(count)} left alone: lifetime keys never expire`);
    else parts.push(`${n(count)} skipped`);
  }
  if (result.notFound.length > 0) parts.push(`${n(result.notFound.length)} not found (deleted meanwhile?)`);
  const text = parts.join('; ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
