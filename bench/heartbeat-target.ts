// The `heartbeat` bench target (contract §20): one server holding SESSIONS live sessions, heartbeats spread over them at
// random by a wrk script, as SESSIONS running scripts would send them.

/** How many live sessions the target holds while it is measured. */
export const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
// At most this many requests in flight while the target is prepared.
const AT_ONCE = 32;

/** Runs `task(0)` … `task(count - 1)`, AT_ONCE at a time. */
async function eachAtOnce(count: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
}

/**
 * Opens `count` live sessions on one key (no device limit, no HWID binding, each with its own HWID) and answers their
 * ids. The heartbeat period is the longest (300 s) unless given, so a session the random spread leaves alone for a
 * while stays live.
 */
export async function openLiveSessions(
  base: string,
  serviceKey: string,
  service: string,
  count: number,
  heartbeatSeconds = 300,
): Promise<string[]> {
  const call = async (method: string, path: string, body: unknown, key?: string) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  await call('PUT', '/api/v1/keys/api/settings', { sessionHeartbeatSeconds: heartbeatSeconds }, serviceKey);
  const generated = await call('POST', '/api/v1/keys/api/generate', { expirationType: 'lifetime', noHwidValidation: true }, serviceKey);
  const key = (generated.keys as Array<{ key: string }>)[0]!.key;
  const ids: string[] = [];
  await eachAtOnce(count, async (i) => {
    const opened = await call('POST', `/api/v1/public/sessions/${service}`, { key, hwid: `bench-hb-${i}` });
    ids.push(String(opened.sessionId));
  });
  return ids;
}

/**
 * Beats every session once and opens new ones in place of those that ended (the ids are replaced in `ids`): a full
 * run's round can outlast two heartbeat periods (ten minutes), and a session the random spread left alone since the
 * last round has then ended, so its heartbeats would answer 410 and fail the run. Answers how many were reopened.
 */
export async function keepSessionsLive(base: string, serviceKey: string, service: string, ids: string[]): Promise<number> {
  const ended: number[] = [];
  await eachAtOnce(ids.length, async (i) => {
    const response = await fetch(`${base}/api/v1/public/sessions/${service}/${ids[i]}/heartbeat`, { method: 'POST' });
    const text = await response.text();
    if (response.status === 410) ended.push(i);
    else if (!response.ok) throw new Error(`heartbeat of ${ids[i]}: ${response.status} ${text}`);
  });
  if (ended.length) {
    const fresh = await openLiveSessions(base, serviceKey, service, ended.length);
    ended.forEach((index, j) => (ids[index] = fresh[j]!));
  }
  return ended.length;
}

// The heartbeat as an HTTP client sends it: a POST with a JSON body of `{}`. Without the body the request skips
// Fastify's body parsing, and the outside harness of issue 47 (which sends it) measured 0.46-0.50 where this target,
// without it, read 0.63.
const BEAT = `"POST", "/api/v1/public/sessions/%s/" .. %s .. "/heartbeat", { ["content-type"] = "application/json" }, "{}"`;
const beat = (service: string, id: string) => BEAT.replace('%s', service).replace('%s', id);

/** wrk Lua: a heartbeat of a live session picked at random, as an HTTP client POSTs it. */
export const heartbeatScript = (service: string, ids: string[]) => `
math.randomseed(os.time())
local ids = {${ids.map((id) => `"${id}"`).join(',')}}
request = function()
  return wrk.format(${beat(service, 'ids[math.random(#ids)]')})
end
`;

/**
 * wrk Lua for heartbeats at a set pace: the sessions in turns, each connection waiting `delayMs` before its next
 * request (wrk's delay()), so `connections` × 1000 / `delayMs` heartbeats a second.
 */
export const pacedHeartbeatScript = (service: string, ids: string[], delayMs: number) => `
local ids = {${ids.map((id) => `"${id}"`).join(',')}}
local i = 0
request = function()
  i = i + 1
  return wrk.format(${beat(service, 'ids[(i % #ids) + 1]')})
end
delay = function() return ${delayMs} end
`;
