import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs } from '../../src/modules/webhook/webhook.service.ts';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);
const answer = (headers: Record<string, string>, body: unknown = '') => ({
  status: 429,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('reading how long the platform asked to wait', () => {
  it('reads the Retry-After header as seconds', () => {
    expect(retryAfterMs(answer({ 'retry-after': '7' }), NOW)).toBe(7_000);
  });

  it('reads a Retry-After HTTP date against the clock', () => {
    expect(retryAfterMs(answer({ 'retry-after': new Date(NOW + 90_000).toUTCString() }), NOW)).toBe(90_000);
  });

  it('reads the X-RateLimit-Reset-After header as fractional seconds', () => {
    expect(retryAfterMs(answer({ 'x-ratelimit-reset-after': '0.25' }), NOW)).toBe(250);
  });

  it("reads the body's fractional retry_after as seconds", () => {
    expect(retryAfterMs(answer({}, { retry_after: 0.731, global: false }), NOW)).toBe(731);
    expect(retryAfterMs(answer({}, { retry_after: 12 }), NOW)).toBe(12_000);
  });

  it('reads an old-style whole-millisecond retry_after as milliseconds', () => {
    expect(retryAfterMs(answer({}, { retry_after: 2500 }), NOW)).toBe(2_500);
  });

  it('takes the longest when header and body disagree', () => {
    expect(retryAfterMs(answer({ 'retry-after': '2' }, { retry_after: 1.5 }), NOW)).toBe(2_000);
    expect(retryAfterMs(answer({ 'retry-after': '1' }, { retry_after: 4.2 }), NOW)).toBe(4_200);
  });

  it('caps an absurd wait at one hour', () => {
    expect(retryAfterMs(answer({ 'retry-after': '999999' }), NOW)).toBe(3_600_000);
  });

  it('answers null when there is no usable hint', () => {
    expect(retryAfterMs(answer({}, 'not json'), NOW)).toBeNull();
    expect(retryAfterMs(answer({ 'retry-after': 'soon' }, { retry_after: -1 }), NOW)).toBeNull();
    expect(retryAfterMs(answer({}, { retry_after: '5' }), NOW)).toBeNull();
  });
});

describe('backoff between failed attempts', () => {
  it('doubles with each attempt, within half and all of the ceiling', () => {
    expect(backoffMs(1, () => 0)).toBe(1_000);
    expect(backoffMs(1, () => 1)).toBe(2_000);
    expect(backoffMs(2, () => 0)).toBe(2_000);
    expect(backoffMs(3, () => 1)).toBe(8_000);
  });

  it('is capped at ten minutes however many attempts failed', () => {
    expect(backoffMs(30, () => 1)).toBe(600_000);
    expect(backoffMs(30, () => 0)).toBe(300_000);
  });
});
