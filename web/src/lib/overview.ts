// Pure helpers of the service overview (unit-tested): today's window and what needs the seller's attention.

/** Midnight UTC of `now`'s day and `now`: the analytics range of "today" (buckets are UTC hours). */
export function todayUtc(now: number): { from: string; to: string } {
  const start = new Date(now);
  start.setUTCHours(0, 0, 0, 0);
  return { from: start.toISOString(), to: new Date(now).toISOString() };
}

export interface Attention {
  tone: 'red' | 'yellow';
  text: string;
}

/**
 * What needs attention: failed webhook messages and a BASE_URL that is not where the dashboard was opened
 * (loadstrings and links then point elsewhere, contract §11).
 */
export function attentionItems(input: { failedWebhookMessages: number; baseUrl: string | null; dashboardOrigin: string }): Attention[] {
  const items: Attention[] = [];
  if (input.failedWebhookMessages > 0) {
    const n = input.failedWebhookMessages;
    items.push({
      tone: 'red',
      text: `${n} webhook message${n === 1 ? '' : 's'} could not be delivered: check the webhook address in Settings (the outbox there says why).`,
    });
  }
  if (input.baseUrl) {
    let origin: string | null = null;
    try {
      origin = new URL(input.baseUrl).origin;
    } catch {
      origin = null;
    }
    if (origin !== input.dashboardOrigin) {
      items.push({
        tone: 'yellow',
        text: `Loadstrings and links point at ${input.baseUrl}, but this dashboard is open at ${input.dashboardOrigin}. If buyers reach the server at this address, set BASE_URL=${input.dashboardOrigin} and restart Keyward.`,
      });
    }
  }
  return items;
}

/** Points of a sparkline path in a width × height box, zero at the bottom. */
export function sparklinePoints(values: number[], width: number, height: number): string {
  if (values.length === 0) return '';
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  return values.map((v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * height).toFixed(1)}`).join(' ');
}
