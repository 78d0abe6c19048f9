import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError, statusOf, type ErrorBody, type ErrorCode } from '../errors.ts';
import { describeValidationError } from './validation.ts';

function send(reply: FastifyReply, answer: ErrorAnswer) {
  if (answer.body.retryAfter !== undefined) reply.header('retry-after', String(answer.body.retryAfter));
  return reply.status(answer.status).type('application/json; charset=utf-8').send(answer.body);
}

/** An error's answer: its status and the error envelope (contract §1). */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
}

const answer = (requestId: string, code: ErrorCode, message: string, extras: Partial<ErrorBody> = {}): ErrorAnswer => ({
  status: statusOf(code),
  body: { success: false, error: message, code, ...extras, requestId },
});

/** Framework errors a client caused, by Fastify's code. Everything unknown is a 500 with a generic sentence. */
const FRAMEWORK: Record<string, [ErrorCode, string, string?]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ['VALIDATION_ERROR', 'The request body is not valid JSON', 'body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['VALIDATION_ERROR', 'The request body is empty', 'body'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['VALIDATION_ERROR', 'The request body must be JSON (Content-Type: application/json)', 'body'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['VALIDATION_ERROR', 'Content-Length does not match the body', 'body'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'The request body is too large'],
  FST_ERR_CTP_INVALID_TYPE: ['VALIDATION_ERROR', 'The Content-Type header is invalid', 'body'],
};

// Failures of the connection to the database, not of the query: retrying shortly can succeed (contract §10).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: admin/crash shutdown, cannot connect now (starting, failing over), too many connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);
// Errors the drivers raise without a code: pg on a dropped or unobtainable connection, Kysely and
// better-sqlite3 once the handle is closed (shutting down).
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Cannot use a pool after calling end|Client has encountered a connection error|driver has already been destroyed|database connection is not open/i;
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Whether an error (or its cause, or any error of an AggregateError) is a lost or refused database connection. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/**
 * What any error thrown while answering a request becomes, logged as it deserves: the one place that decides the error
 * envelope, for Fastify's routes and the hot lane's (plugins/hot-lane.ts) alike.
 */
export function errorAnswer(error: unknown, requestId: string, log: FastifyBaseLogger): ErrorAnswer {
  if (error instanceof AppError) {
    if (error.status >= 500) log.error({ err: error }, error.message);
    return answer(requestId, error.code, error.message, error.extras);
  }
  const framework = error as FastifyError;
  if (framework.validation) {
    const { field, message } = describeValidationError(framework.validation, framework.validationContext ?? 'body');
    return answer(requestId, 'VALIDATION_ERROR', message, { field });
  }
  const known = framework.code ? FRAMEWORK[framework.code] : undefined;
  if (known) {
    const [code, message, field] = known;
    return answer(requestId, code, message, field ? { field } : {});
  }
  if (framework.statusCode === 429) return answer(requestId, 'RATE_LIMITED', 'Too many requests, slow down');
  if (framework.statusCode && framework.statusCode >= 400 && framework.statusCode < 500) {
    log.warn({ err: error }, 'client error without a mapping');
    return answer(requestId, 'VALIDATION_ERROR', 'The request is malformed');
  }
  if (isDatabaseUnavailable(error)) {
    log.warn({ err: error }, 'database unavailable');
    return answer(requestId, 'UNAVAILABLE', 'The service is briefly unavailable; try again shortly', {
      retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS,
    });
  }
  log.error({ err: error }, 'unhandled error');
  return answer(requestId, 'INTERNAL_ERROR', 'Something went wrong on our side; the request id identifies it in the logs');
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => send(reply, errorAnswer(error, request.id, request.log)));

  app.setNotFoundHandler((request, reply) =>
    send(reply, answer(request.id, 'NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}
