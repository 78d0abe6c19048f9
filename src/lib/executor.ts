import { Type } from 'typebox';

/**
 * The executor a run reports about itself (contract §29): `identifyexecutor()`'s name and version, as the Lua clients send
 * it. It is the buyer's own claim, so it only ever labels analytics and picks a script's polite refusal; it is no lock.
 */
export const EXECUTOR_MAX_LENGTH = 64;
/** What a run that names no executor is counted as. */
export const UNKNOWN_EXECUTOR = 'unknown';
/** What names past a service's daily allowance are counted as (contract §29). */
export const OTHER_EXECUTOR = 'other';

// Printable: no control characters (C0, DEL, C1). Letters of any script are fine: executors are named by people.
const PRINTABLE = '^[^\\x00-\\x1F\\x7F-\\x9F]*$';

/**
 * The `executor` field of the client routes. Too long or unprintable is a 400 naming the field, like any other malformed
 * client field (contract §4); the Lua clients trim what they send to fit, so only a hand-made request meets it.
 */
export const ExecutorField = Type.String({
  maxLength: EXECUTOR_MAX_LENGTH,
  pattern: PRINTABLE,
  errorMessage: `must be the executor's name of at most ${EXECUTOR_MAX_LENGTH} printable characters`,
});

/** A rule's name as the seller types it (script rules, contract §29). */
export const ExecutorRuleName = Type.String({
  minLength: 1,
  maxLength: EXECUTOR_MAX_LENGTH,
  pattern: '^(?=.*\\S)[^\\x00-\\x1F\\x7F-\\x9F]*$',
  errorMessage: `must be an executor name of 1 to ${EXECUTOR_MAX_LENGTH} printable characters`,
});

/** The reported name as it is counted: trimmed, and `unknown` when there is none. */
export const executorOf = (reported: string | undefined): string => reported?.trim() || UNKNOWN_EXECUTOR;

// A version starts at a separator followed by a digit, with an optional "v": "Wave 1.2", "Synapse X v3", "Krnl/2.0".
const VERSION_TAIL = /[\s/_-]+v?\d.*$/i;

/**
 * The part of a name before any version, lower-cased with spaces collapsed: what script rules compare, so "Wave",
 * "wave 2.1.0" and "WAVE v2" are one executor.
 */
export function executorBase(name: string): string {
  return name.trim().replace(VERSION_TAIL, '').replace(/\s+/g, ' ').toLowerCase();
}
