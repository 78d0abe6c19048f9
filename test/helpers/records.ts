import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { TestApp } from './app.ts';
import { call, seedAccount, seedService, type SeededAccount, type SeededService } from './seed.ts';

type Answer = Pick<Awaited<ReturnType<typeof call>>, 'status' | 'body'>;

/** Contract §3: the exact field lists of the key records. */
export const ACTIVE_KEY_FIELDS = [
  'key',
  'hwid',
  'hwids',
  'maxHwids',
  'note',
  'isPremium',
  'noHwidValidation',
  'status',
  'expiresAt',
  'chatId',
  'executions',
  'createdAt',
  'activatedAt',
  'lastUsedAt',
  'hwidResetAt',
  'hwidResetCount',
  // Contract §17: who made the key ({ accountId, username } or null).
  'createdBy',
  // Contract §19: the ban in force's reason and end; null when the key is not banned.
  'banReason',
  'banExpiresAt',
  // Contract §18: live sessions the key may hold at once (0 = no limit).
  'maxSessions',
  // Contract §23: a key bound before its first use: the days it runs from its first validation; null otherwise.
  'durationDays',
] as const;

export const GENERATED_KEY_FIELDS = [
  'key',
  'maxHwids',
  'note',
  'isPremium',
  'noHwidValidation',
  'status',
  'expiresAt',
  'chatId',
  'expirationType',
  // Contract §12.1: the days an afterRedeem key runs from its redemption; null for every other key.
  'durationDays',
  'createdAt',
  // Contract §17: who made the key ({ accountId, username } or null).
  'createdBy',
  'maxSessions',
] as const;

/** ISO 8601 UTC with milliseconds, as every time in a response is (contract §1). */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const iso = (ms: number) => new Date(ms).toISOString();
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

const sorted = (fields: readonly string[]) => [...fields].sort();

function expectTimeOrNull(value: unknown, nullable: boolean) {
  if (value === null && nullable) return;
  expect(value).toMatch(ISO_MS);
}

export function expectActiveKey(record: Record<string, unknown>) {
  expect(Object.keys(record).sort()).toEqual(sorted(ACTIVE_KEY_FIELDS));
  expect(record.key).toMatch(/^[A-Za-z0-9]{32}$/);
  expect(typeof record.isPremium).toBe('boolean');
  expect(typeof record.noHwidValidation).toBe('boolean');
  expect(['active', 'paused', 'banned']).toContain(record.status);
  expect(Number.isInteger(record.executions)).toBe(true);
  expect(Number.isInteger(record.hwidResetCount)).toBe(true);
  // §7.1: hwid is the first of hwids, or null.
  expect(Array.isArray(record.hwids)).toBe(true);
  expect(record.hwid).toBe((record.hwids as string[])[0] ?? null);
  expectTimeOrNull(record.expiresAt, true);
  expectTimeOrNull(record.createdAt, false);
  expectTimeOrNull(record.activatedAt, false);
  expectTimeOrNull(record.lastUsedAt, true);
  expectTimeOrNull(record.hwidResetAt, true);
}

export function expectGeneratedKey(record: Record<string, unknown>) {
  expect(Object.keys(record).sort()).toEqual(sorted(GENERATED_KEY_FIELDS));
  expect(record.key).toMatch(/^[A-Za-z0-9]{32}$/);
  expect(typeof record.isPremium).toBe('boolean');
  expect(typeof record.noHwidValidation).toBe('boolean');
  expect(['active', 'paused', 'banned']).toContain(record.status);
  expect(['byDays', 'byDate', 'lifetime']).toContain(record.expirationType);
  expectTimeOrNull(record.expiresAt, true);
  expectTimeOrNull(record.createdAt, false);
}

/** A 400 VALIDATION_ERROR naming `field`, in the contract's envelope. */
export function expectValidationError(res: Answer, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', field });
  expect(typeof res.body.error).toBe('string');
}

export function expectError(res: Answer, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, code });
  expect(typeof res.body.error).toBe('string');
}

/** Redeems (and binds) a generated key through the public client route, as a loader would. */
export async function redeem(app: App, service: string, key: string, hwid: string) {
  const res = await call(app, 'GET', `/api/v1/keys/validate?${new URLSearchParams({ service, key, hwid })}`);
  expect(res.body.data, JSON.stringify(res.body)).toMatchObject({ valid: true, code: 'KEY_VALID' });
  return res;
}

/**
 * Fresh services of one owner account per test file: hashing a password for every test costs more
 * than the test itself. Tests about another account seed that account explicitly.
 */
export function serviceSeeder(t: () => TestApp): () => Promise<SeededService> {
  let owner: Promise<SeededAccount> | undefined;
  return async () => seedService(t().ctx, await (owner ??= seedAccount(t().ctx)));
}
