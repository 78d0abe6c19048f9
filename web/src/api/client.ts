import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** The error envelope of contract §1, kept whole so pages can show `field`, `errors`, `duplicates`… */
export interface ErrorBody {
  success: false;
  error: string;
  code: string;
  field?: string;
  retryAfter?: number;
  errors?: Array<{ index: number; field: string; error: string }>;
  duplicates?: string[];
  [extra: string]: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.error || `Request failed (${status})`);
  }
  get code() {
    return this.body.code;
  }
}

let csrfToken: string | null = null;
/** Set from GET /auth/session; every cookie-authenticated mutation must carry it (contract §2). */
export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

/** For the few requests made without fetch (an upload with a progress bar uses XMLHttpRequest). */
export const currentCsrfToken = () => csrfToken;

type UnauthorizedHandler = () => void;
let onUnauthorized: UnauthorizedHandler = () => {
  const here = window.location.pathname + window.location.search;
  window.location.assign(`/login?next=${encodeURIComponent(here)}`);
};
/** The router installs a handler that navigates without reloading the page. */
export function setUnauthorizedHandler(handler: UnauthorizedHandler) {
  onUnauthorized = handler;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
// Sign-in routes answer 401 for wrong credentials: those are shown on the form, not redirected. The
// vault answers 401 for an expired bearer token, which the page renews (account/vault.ts).
const NO_REDIRECT = [
  '/api/v1/auth/login',
  '/api/v1/auth/register',
  '/api/v1/auth/session',
  '/api/v1/auth/logout',
  '/api/v1/vault-v3/session/token',
  '/api/v3/vault/',
];

const sessionMiddleware: Middleware = {
  onRequest({ request }) {
    if (!SAFE.has(request.method) && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !NO_REDIRECT.some((p) => new URL(request.url).pathname.startsWith(p))) onUnauthorized();
    return response;
  },
};

/** The typed client: paths and bodies come from the server's own OpenAPI document (npm run gen:api). */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(sessionMiddleware);

type Payload<R> = NonNullable<R> extends { data: infer T } ? T : never;

/** Unwraps `{ success, data }`, throwing ApiError for the error envelope. */
export function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(result: R): Payload<R['data']> {
  if (result.response.ok && result.data !== undefined) return (result.data as { data: Payload<R['data']> }).data;
  const body = (result.error ?? {}) as Partial<ErrorBody>;
  throw new ApiError(result.response.status, {
    ...body,
    success: false,
    error: body.error ?? `Request failed (${result.response.status})`,
    code: body.code ?? 'UNKNOWN',
  });
}

/** Headers for the typed client on a service route: `api.GET(path, { headers: serviceHeaders(id) })`. */
export const serviceHeaders = (serviceId: string) => ({ 'x-service-id': serviceId });

/**
 * POST/PUT JSON through XMLHttpRequest so the upload reports progress (a script may be 40 MB; fetch
 * has no upload progress). Same CSRF, service header, 401 handling and error envelope as the typed client.
 */
export function uploadWithProgress<T>(
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
  serviceId: string,
  onProgress: (fraction: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, new URL(path, window.location.origin));
    xhr.withCredentials = true;
    xhr.setRequestHeader('content-type', 'application/json');
    xhr.setRequestHeader('x-service-id', serviceId);
    if (csrfToken) xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onerror = () => reject(new Error('The upload failed (network error)'));
    xhr.onload = () => {
      let parsed: { data?: T } & Partial<ErrorBody> = {};
      try {
        parsed = JSON.parse(xhr.responseText) as typeof parsed;
      } catch {
        // not JSON: described below by the status
      }
      if (xhr.status === 401) onUnauthorized();
      if (xhr.status >= 200 && xhr.status < 300) return resolve(parsed.data as T);
      reject(
        new ApiError(xhr.status, {
          ...parsed,
          success: false,
          error: parsed.error ?? `Request failed (${xhr.status})`,
          code: parsed.code ?? 'UNKNOWN',
        }),
      );
    };
    xhr.send(JSON.stringify(body));
  });
}

/** A sentence for a toast or an inline error. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.body.field ? `${error.message}` : error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}
