import type { FastifyServerOptions, FastifySchemaValidationError } from 'fastify';
import ajvFormats from 'ajv-formats';
import type { Ajv } from 'ajv';

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
  return { field, message: `${field} ${sentence(chosen)}` };
}
