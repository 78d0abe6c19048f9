import type { FastifyReply, FastifyRequest, FastifyServerOptions, FastifySchemaValidationError, HookHandlerDoneFunction } from 'fastify';
import ajvFormats from 'ajv-formats';
import type { Ajv } from 'ajv';
import { invalid } from '../errors.ts';
import { plainSentence } from '../lib/plain-words.ts';

/**
 * The contract forbids coercion ("7" is not a number) and silent dropping of unknown fields,
 * both of which are Fastify's defaults. `verbose` keeps the failing schema on each error so the
 * error handler can show a schema's own `errorMessage`.
 */
export const ajvOptions: NonNullable<FastifyServerOptions['ajv']> = {
  customOptions: {
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    verbose: true,
    strict: false,
  },
  plugins: [
    ajvFormats as never,
    (ajv: Ajv) => {
      ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
      ajv.addKeyword({
        keyword: 'x-int-range',
        type: 'string',
        schemaType: 'array',
        validate: (range: [number, number], data: string) => {
          // Leading zeros are refused: `0100` is not how anyone writes 100, and a cache keyed on the text would split.
          if (!/^(0|[1-9][0-9]*)$/.test(data)) return false;
          const n = Number(data);
          return Number.isSafeInteger(n) && n >= range[0] && n <= range[1];
        },
      });
      return ajv;
    },
  ],
};

type AjvError = FastifySchemaValidationError & {
  parentSchema?: { errorMessage?: string; maxLength?: number; minLength?: number; minimum?: number; maximum?: number };
};

function fieldOf(error: AjvError, context: string): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = error.params as Record<string, unknown>;
  const child = (params.missingProperty ?? params.additionalProperty) as string | undefined;
  if (child) return path ? `${path}.${child}` : child;
  return path || context;
}

function sentence(error: AjvError): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a known field';
  if (error.parentSchema?.errorMessage) return error.parentSchema.errorMessage;
  switch (error.keyword) {
    case 'type':
      return `must be ${params.type === 'integer' ? 'a whole number' : `of type ${String(params.type)}`}`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    case 'minLength':
      return `must be at least ${String(params.limit)} characters`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} entries`;
    case 'format':
      return `must be a valid ${String(params.format)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** Picks the error a person should read: the outermost union failure, else the first error. */
export function describeValidationError(errors: FastifySchemaValidationError[], context: string) {
  const list = errors as AjvError[];
  const unions = list.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const chosen = unions.length > 0 ? unions[unions.length - 1]! : list[0]!;
  const field = fieldOf(chosen, context);
  if (field === context && chosen.keyword === 'type') {
    return { field, message: `The request ${context} must be a JSON object` };
  }
  return { field, message: plainSentence(`${field} ${sentence(chosen)}`) };
}

// A NUL (PostgreSQL cannot store it in text) or a lone surrogate (not encodable as UTF-8; the dialects disagree).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first string (value or property name) in `value` the databases cannot store, else null.
 * Inside an object that is not plain JSON (an uploaded script's code, decoded by its own parser into byte
 * chunks) the object's own path is the field: the sender wrote `code`, not `code.chunks.3`.
 */
export function unstorableAt(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  // Decoded text as UTF-8 bytes: only a NUL byte matters (a lone surrogate was already replaced while
  // decoding). One native search: walking a Buffer's indexes cost seconds and hundreds of MB on 40 MB.
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).includes(0) ? path : null;
  const prototype = Object.getPrototypeOf(value) as unknown;
  const opaque = !Array.isArray(value) && prototype !== Object.prototype && prototype !== null;
  for (const [name, child] of Object.entries(value)) {
    const at = path ? `${path}.${name}` : name;
    if (UNSTORABLE.test(name)) return opaque && path ? path : at;
    const found = unstorableAt(child, at, depth + 1);
    if (found !== null) return opaque && path ? path : found;
  }
  return null;
}

/**
 * The same refusal for the path parameters alone, for an authentication that reads one (the Luarmor API's key and
 * project are in the path): such text must be a 400, not a lookup the database fails on.
 */
export function assertStorableParams(request: FastifyRequest): void {
  const field = unstorableAt(request.params, '');
  if (field !== null)
    throw invalid(field || 'params', `${field || 'The request params'} must not contain a NUL character or an unpaired surrogate`);
}

/**
 * Installed once for every route (app.ts), whatever its schema says, so no new route can let such text
 * reach a query: contract §10 wants a 400 naming the field on both databases.
 */
export function rejectUnstorableText(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // The URL can carry such text only percent-encoded (the HTTP parser refuses a raw NUL), so a request
  // with no body and no % in its URL has nothing to walk: most executor calls.
  if (request.body === undefined && !request.url.includes('%')) return done();
  const parts: Array<[string, unknown]> = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [context, value] of parts) {
    const field = unstorableAt(value, '');
    if (field !== null) {
      return done(
        invalid(field || context, `${field || `The request ${context}`} must not contain a NUL character or an unpaired surrogate`),
      );
    }
  }
  done();
}
