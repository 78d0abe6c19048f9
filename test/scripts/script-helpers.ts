import type { App } from '../../src/app.ts';
import { call, type SeededService } from '../helpers/seed.ts';

export const SCRIPTS = '/api/v1/vss/api/scripts';

/** Uploads a script through the API and returns its record; throws unless it was created. */
export async function uploadScript(app: App, s: SeededService, body: Record<string, unknown>) {
  const res = await call(app, 'POST', SCRIPTS, { key: s.serviceKey, body });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; name: string; status: string; loadstring: string; size: number };
}

/** GET /vss/fetch as an executor would: the raw Lua text and status. */
export async function fetchScript(app: App, scriptId: string, query: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url: `/api/v1/vss/fetch/${scriptId}?${new URLSearchParams(query)}`, headers });
  return { status: res.statusCode, body: res.body, type: String(res.headers['content-type']) };
}

/** The service's stored executions, after writing what this instance counted (fetches count in memory first). */
export async function serviceExecutions(app: App, s: SeededService): Promise<number> {
  await app.ctx.executions.flush(app.ctx.db);
  const res = await call(app, 'GET', '/api/v1/keys/api/execution', { key: s.serviceKey });
  return res.body.data.executions as number;
}
