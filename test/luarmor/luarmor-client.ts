// A Luarmor API client as the public ones (luarmor-ts, luarmor-rs, luarmor-deploy-action and the bots that call
// api.luarmor.net) send their requests: the key raw in Authorization, JSON bodies, the fields they read. Written from
// their request shapes for these tests; it talks to an app through inject, under {base}/luarmor.
import type { App } from '../../src/app.ts';

export interface LuarmorAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export class LuarmorClient {
  constructor(
    private readonly app: () => App,
    private readonly apiKey: string | null,
    private readonly options: { base?: string; remoteAddress?: string; auth?: (key: string) => Record<string, string> } = {},
  ) {}

  async request(method: Method, path: string, body?: unknown): Promise<LuarmorAnswer> {
    const headers: Record<string, string> = {};
    if (this.apiKey !== null) Object.assign(headers, this.options.auth ? this.options.auth(this.apiKey) : { authorization: this.apiKey });
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.app().inject({
      method,
      url: `${this.options.base ?? '/luarmor'}${path}`,
      headers,
      payload: body === undefined ? undefined : JSON.stringify(body),
      remoteAddress: this.options.remoteAddress,
    });
    let parsed: unknown;
    try {
      parsed = response.json();
    } catch {
      parsed = response.body;
    }
    return { status: response.statusCode, body: parsed, headers: response.headers };
  }

  status() {
    return this.request('GET', '/status');
  }
  keyDetails() {
    return this.request('GET', `/v3/keys/${this.apiKey}/details`);
  }
  keyStats(noUsers = false) {
    return this.request('GET', `/v3/keys/${this.apiKey}/stats${noUsers ? '?noUsers=true' : ''}`);
  }
  getUsers(project: string, query: Record<string, string | number> = {}) {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    return this.request('GET', `/v3/projects/${project}/users${qs ? `?${qs}` : ''}`);
  }
  createUser(project: string, body: Record<string, unknown> = {}) {
    return this.request('POST', `/v3/projects/${project}/users`, body);
  }
  updateUser(project: string, body: Record<string, unknown>) {
    return this.request('PATCH', `/v3/projects/${project}/users`, body);
  }
  deleteUser(project: string, userKey: string) {
    return this.request('DELETE', `/v3/projects/${project}/users?user_key=${encodeURIComponent(userKey)}`);
  }
  resetHwid(project: string, userKey: string, force?: boolean) {
    return this.request('POST', `/v3/projects/${project}/users/resethwid`, {
      user_key: userKey,
      ...(force === undefined ? {} : { force }),
    });
  }
  linkDiscord(project: string, userKey: string, discordId: string, force?: boolean) {
    return this.request('POST', `/v3/projects/${project}/users/linkdiscord`, {
      user_key: userKey,
      discord_id: discordId,
      ...(force === undefined ? {} : { force }),
    });
  }
  blacklist(project: string, userKey: string, options: { ban_reason?: string; ban_expire?: number } = {}) {
    return this.request('POST', `/v3/projects/${project}/users/blacklist`, { user_key: userKey, ...options });
  }
  unban(project: string, token: string) {
    return this.request('GET', `/v3/projects/${project}/users/unban?unban_token=${encodeURIComponent(token)}`);
  }
  createScript(project: string, body: { name: string; script: string; ffa?: boolean; silent?: boolean; heartbeat?: boolean }) {
    return this.request('POST', `/v3/projects/${project}/scripts`, body);
  }
  updateScript(project: string, scriptId: string, body: { script?: string; ffa?: boolean; silent?: boolean; heartbeat?: boolean }) {
    return this.request('PUT', `/v3/projects/${project}/scripts/${scriptId}`, body);
  }
}
