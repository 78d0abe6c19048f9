import type { AppContext } from '../../context.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { invalid } from '../../errors.ts';
import { validateKey } from '../validation/validation.service.ts';
import * as repo from './variables.repository.ts';

export const MAX_VARIABLES = 100;
export const MAX_VALUE_CHARS = 4096;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
// PostgreSQL refuses NUL in text and both databases mangle lone surrogates (contract §10).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export type VariableMap = Record<string, string>;

const shown = (name: string) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);

/** Checks a whole set of variables; the first problem is a 400 naming the variable in plain words. */
export function checkVariables(input: Record<string, unknown>): VariableMap {
  const names = Object.keys(input);
  if (names.length > MAX_VARIABLES) {
    throw invalid('variables', `A service may have at most ${MAX_VARIABLES} variables; this list has ${names.length}`);
  }
  const out: Array<[string, string]> = [];
  for (const name of names) {
    const value = input[name];
    const field = `variables.${name.slice(0, 64)}`;
    if (!NAME.test(name)) {
      throw invalid(
        field,
        `The variable name ${shown(name)} is not allowed: a name starts with a letter or _ and has at most 64 letters, digits or _`,
      );
    }
    if (typeof value !== 'string') throw invalid(field, `The variable ${name} must be text (a string)`);
    if ([...value].length > MAX_VALUE_CHARS) {
      throw invalid(field, `The variable ${name} is longer than ${MAX_VALUE_CHARS} characters`);
    }
    if (UNSTORABLE.test(value)) throw invalid(field, `The variable ${name} contains a character that cannot be stored`);
    out.push([name, value]);
  }
  // fromEntries defines own properties, so even a variable named __proto__ is kept as a plain entry.
  return Object.fromEntries(out);
}

async function read(ctx: AppContext, serviceId: string): Promise<VariableMap> {
  const row = await repo.findVariables(ctx.db, serviceId);
  return row ? (JSON.parse(row.variables) as VariableMap) : {};
}

/** GET /keys/api/variables. */
export async function getVariables(ctx: AppContext, serviceId: string) {
  return { variables: await read(ctx, serviceId) };
}

/** PUT /keys/api/variables: replaces the whole set. */
export async function putVariables(ctx: AppContext, serviceId: string, input: Record<string, unknown>, actor: Actor) {
  const variables = checkVariables(input);
  const now = ctx.clock();
  await ctx.db.transaction().execute(async (trx) => {
    await repo.saveVariables(trx, serviceId, JSON.stringify(variables), now);
    // Names only: a value may be something the seller keeps from the log (a link, a token of their own).
    await recordServiceAudit(trx, actor, serviceId, 'variables.update', null, { names: Object.keys(variables) }, now);
  });
  return { variables };
}

/**
 * What a client gets (GET /keys/variables, api.variables()): the same verdict as /keys/validate, HWID
 * binding included, and the variables only when it is valid.
 */
export async function clientVariables(ctx: AppContext, serviceId: string, credentials: { key?: string; hwid?: string }) {
  const verdict = await validateKey(ctx, serviceId, credentials);
  return { valid: verdict.valid, code: verdict.code, variables: verdict.valid ? await read(ctx, serviceId) : {} };
}
