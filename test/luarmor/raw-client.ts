// The exact bytes the public Luarmor clients put on the wire (contract §23), sent as they are: luarmor-rs serialises
// every unset option as `null` and sends GET /users with a JSON body; luarmor-ts and the deploy action send the key raw
// in Authorization (the deploy action's /details call sends no header at all, the key only in the path); bots build
// bodies with `value || null`. Read from those clients' public sources to learn the bytes; no code of theirs is here.
import type { App } from '../../src/app.ts';

export interface RawAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Record<string, string | string[] | number | undefined>;
}

/** One request under /luarmor with exactly this body text (JSON as the client wrote it), the key raw in Authorization. */
export async function raw(
  app: App,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  options: { key?: string | null; body?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = options.key;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await app.inject({ method, url: `/luarmor${path}`, headers, payload: options.body });
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, body, text: response.body, headers: response.headers };
}
