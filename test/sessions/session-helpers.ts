import type { App } from '../../src/app.ts';
import type { TestApp } from '../helpers/app.ts';
import { call, type SeededService } from '../helpers/seed.ts';

/** The client calls of contract §18, as an executor sends them. */
export const sessionsOf = (s: SeededService) => ({
  open: (app: App, body: Record<string, unknown>) => call(app, 'POST', `/api/v1/public/sessions/${s.id}`, { body }),
  openByGet: (app: App, query: Record<string, string>) =>
    call(app, 'GET', `/api/v1/public/sessions/${s.id}/open?${new URLSearchParams(query)}`),
  heartbeat: (app: App, sessionId: string) =>
    call(app, 'POST', `/api/v1/public/sessions/${s.id}/${encodeURIComponent(sessionId)}/heartbeat`),
  heartbeatByGet: (app: App, sessionId: string) =>
    call(app, 'GET', `/api/v1/public/sessions/${s.id}/${encodeURIComponent(sessionId)}/heartbeat`),
  end: (app: App, sessionId: string) => call(app, 'DELETE', `/api/v1/public/sessions/${s.id}/${encodeURIComponent(sessionId)}`),
  endByGet: (app: App, sessionId: string) => call(app, 'GET', `/api/v1/public/sessions/${s.id}/${encodeURIComponent(sessionId)}/end`),
  kill: (app: App, body: Record<string, unknown>) => call(app, 'POST', '/api/v1/keys/api/sessions/kill', { key: s.serviceKey, body }),
  list: (app: App, query: Record<string, string> = {}) =>
    call(app, 'GET', `/api/v1/keys/api/sessions?${new URLSearchParams(query)}`, { key: s.serviceKey }),
});

/** Opens a session and answers its id; throws unless it opened. */
export async function openSession(app: App, s: SeededService, body: Record<string, unknown>): Promise<string> {
  const res = await sessionsOf(s).open(app, body);
  if (res.status !== 201) throw new Error(`open failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.sessionId as string;
}

/** `count` live sessions opened on the store itself (no key, so no limit), each with its own HWID; their ids. */
export async function openOnStore(t: TestApp, serviceId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const session = await t.ctx.liveSessions.open({
      serviceId,
      key: null,
      hwid: `pc-${i}`,
      scriptId: null,
      maxSessions: 0,
      heartbeatSeconds: 30,
      keyExpiresAt: null,
      now: t.clock.now,
    });
    if (session === 'limit') throw new Error('no limit was set');
    ids.push(session.sessionId);
  }
  return ids;
}
