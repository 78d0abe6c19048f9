import { Type } from 'typebox';
import { executorBase, ExecutorRuleName, UNKNOWN_EXECUTOR } from '../../lib/executor.ts';

/** Which executors a script runs on (contract §29): only those listed, all but those listed, or (null) any. */
export type ExecutorRule = { allow: string[] } | { deny: string[] } | null;

export const MAX_RULE_NAMES = 50;
const Names = Type.Array(ExecutorRuleName, { minItems: 1, maxItems: MAX_RULE_NAMES });
export const ExecutorRuleSchema = Type.Union(
  [
    Type.Object({ allow: Names }, { additionalProperties: false }),
    Type.Object({ deny: Names }, { additionalProperties: false }),
    Type.Null(),
  ],
  {
    errorMessage: `must be { "allow": [names] }, { "deny": [names] } or null, with 1 to ${MAX_RULE_NAMES} executor names of at most 64 characters`,
  },
);

/** The stored text (scripts.executors): JSON of the rule, names trimmed, or null. */
export function ruleToColumn(rule: ExecutorRule): string | null {
  if (rule === null) return null;
  const trim = (names: string[]) => names.map((name) => name.trim());
  return JSON.stringify('allow' in rule ? { allow: trim(rule.allow) } : { deny: trim(rule.deny) });
}

/** The rule from its stored text; anything unreadable is no rule (the column is only written by ruleToColumn). */
export function ruleFromColumn(text: string | null): ExecutorRule {
  if (!text) return null;
  try {
    const rule = JSON.parse(text) as { allow?: unknown; deny?: unknown };
    if (Array.isArray(rule.allow)) return { allow: rule.allow.map(String) };
    if (Array.isArray(rule.deny)) return { deny: rule.deny.map(String) };
  } catch {
    // Fall through: no rule.
  }
  return null;
}

/** A rule ready to answer runs: the compared names computed once, when the script row is read. */
export interface CompiledRule {
  allow: boolean;
  bases: ReadonlySet<string>;
  /** The names as the seller wrote them: the allow rule's refusal lists them. */
  names: readonly string[];
}

export function compileRule(rule: ExecutorRule): CompiledRule | null {
  if (rule === null) return null;
  const names = 'allow' in rule ? rule.allow : rule.deny;
  return { allow: 'allow' in rule, bases: new Set(names.map(executorBase)), names };
}

/**
 * Why a run on `executor` (as counted: `unknown` when it named none) is refused, or null when the rule lets it run. A
 * run that names no executor passes a deny rule and fails an allow rule, unless that rule lists "unknown".
 */
export function executorRefusal(rule: CompiledRule | null, executor: string): string | null {
  if (rule === null) return null;
  if (rule.bases.has(executorBase(executor)) === rule.allow) return null;
  const what = executor === UNKNOWN_EXECUTOR ? 'an executor that does not name itself' : executor;
  return rule.allow
    ? `This script does not support ${what}. It runs on: ${rule.names.join(', ')}.`
    : `This script does not support ${what}.`;
}
