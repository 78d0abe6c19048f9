import { invalid } from '../errors.ts';

/**
 * Names that reach an object's prototype when a body is merged or spread (prototype pollution). Contract §22: a body
 * field so named is refused with a 400 naming it, like any unknown field, never dropped in silence (dropping
 * `{"variables":{"__proto__":{…}}}` once answered 200 and emptied the whole set).
 */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
// The names, or a \u escape that could spell one: only such a text needs the walk below.
const MAY_HOLD = /__proto__|constructor|prototype|\\u/;

/** The dotted path of the first property in `value` with a forbidden name, else null (iterative: no deep recursion). */
export function forbiddenKeyAt(value: unknown, base = ''): string | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: base }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1) stack.push({ value: current[i], path: path ? `${path}.${i}` : String(i) });
      continue;
    }
    // Only what JSON.parse makes (plain objects); a decoded script's code (byte chunks) holds no names.
    const prototype = Object.getPrototypeOf(current) as unknown;
    if (prototype !== Object.prototype && prototype !== null) continue;
    const keys = Object.keys(current);
    for (const key of keys) if (FORBIDDEN.has(key)) return path ? `${path}.${key}` : key;
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i]!;
      stack.push({ value: (current as Record<string, unknown>)[key], path: path ? `${path}.${key}` : key });
    }
  }
  return null;
}

/** Throws the 400 for a forbidden name in `value` (parsed from `text`), if any. */
export function refuseForbiddenKeys(text: string, value: unknown, base = ''): void {
  if (!MAY_HOLD.test(text)) return;
  const field = forbiddenKeyAt(value, base);
  if (field !== null) throw invalid(field, `${field} is not a known field`);
}

/**
 * JSON.parse, then the check above. JSON.parse itself never pollutes: it makes `__proto__` an own property, which
 * the check then finds.
 */
export function parseJsonBody(text: string): unknown {
  const value: unknown = JSON.parse(text);
  refuseForbiddenKeys(text, value);
  return value;
}
