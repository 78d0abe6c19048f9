import { ObfuscationFailed, type ObfuscationInput, type ObfuscationProvider } from './provider.ts';

export interface LuraphOptions {
  apiKey: string;
  /** e.g. https://api.lura.ph/v1 (no trailing slash). */
  apiUrl: string;
  pollIntervalMs: number;
  timeoutMs: number;
  maxOutputBytes: number;
}

const REQUEST_TIMEOUT_MS = 60_000;
// Statuses after which the status call is simply asked again (long poll ran out, node busy, rate limit).
const RETRY_STATUSES = new Set([202, 408, 425, 429, 500, 502, 503, 504]);

/**
 * Luraph's job API, as its official SDK (npm `luraph`) uses it: header `Luraph-API-Key`;
 * GET /obfuscate/nodes → { nodes, recommendedId }; POST /obfuscate/new { node, script (base64),
 * fileName, options, useTokens, enforceSettings } → { jobId }; GET /obfuscate/status/:jobId →
 * { error: null | string } (the call waits until the job ends); GET /obfuscate/download/:jobId → the
 * file. Errors are non-2xx answers with { errors: [{ param?, message }] }.
 */
export class LuraphProvider implements ObfuscationProvider {
  readonly kind = 'luraph' as const;

  constructor(private readonly options: LuraphOptions) {}

  async obfuscate(input: ObfuscationInput, signal: AbortSignal): Promise<Buffer[]> {
    const deadline = Date.now() + this.options.timeoutMs;
    const nodes = (await this.json('GET', '/obfuscate/nodes', signal)) as {
      nodes?: Record<string, unknown>;
      recommendedId?: string | null;
    };
    const node = nodes.recommendedId ?? Object.keys(nodes.nodes ?? {})[0];
    if (!node) throw new ObfuscationFailed('Luraph has no obfuscation node available');

    const parts: Buffer[] = [];
    for await (const chunk of input.chunks()) parts.push(chunk);
    const script = Buffer.concat(parts).toString('base64');
    parts.length = 0;
    const fileName = `${input.scriptName}.lua`;
    const created = (await this.json('POST', '/obfuscate/new', signal, {
      node,
      script,
      fileName,
      options: {},
      useTokens: false,
      enforceSettings: false,
    })) as { jobId?: unknown };
    if (typeof created.jobId !== 'string' || !created.jobId) throw new ObfuscationFailed('Luraph did not return a job id');
    const jobId = encodeURIComponent(created.jobId);

    for (;;) {
      if (Date.now() > deadline) throw new ObfuscationFailed(`Luraph did not finish within ${this.options.timeoutMs} ms`);
      const response = await this.request('GET', `/obfuscate/status/${jobId}`, signal);
      if (RETRY_STATUSES.has(response.status)) {
        await response.body?.cancel();
        await delay(this.options.pollIntervalMs, signal);
        continue;
      }
      const status = (await this.parse(response)) as { error?: unknown };
      if (status.error) throw new ObfuscationFailed(`Luraph refused the script: ${String(status.error)}`);
      break;
    }

    const download = await this.request('GET', `/obfuscate/download/${jobId}`, signal);
    if (!download.ok) await this.parse(download);
    const output: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of download.body ?? []) {
      bytes += (chunk as Uint8Array).length;
      if (bytes > this.options.maxOutputBytes) throw new ObfuscationFailed(`Luraph's output exceeds ${this.options.maxOutputBytes} bytes`);
      output.push(Buffer.from(chunk as Uint8Array));
    }
    if (bytes === 0) throw new ObfuscationFailed('Luraph returned an empty file');
    return output;
  }

  private async request(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown): Promise<Response> {
    try {
      return await fetch(`${this.options.apiUrl}${path}`, {
        method,
        headers: { 'Luraph-API-Key': this.options.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ObfuscationFailed(`Luraph could not be reached: ${(error as Error).message}`);
    }
  }

  private async json(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown): Promise<unknown> {
    return this.parse(await this.request(method, path, signal, body));
  }

  /** The JSON of a 2xx answer; for anything else, an ObfuscationFailed carrying Luraph's own error messages. */
  private async parse(response: Response): Promise<unknown> {
    const text = await response.text();
    let data: unknown = {};
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      if (response.ok) throw new ObfuscationFailed('Luraph answered something that is not JSON');
    }
    if (response.ok) return data;
    const errors = (data as { errors?: Array<{ param?: string; message?: string }> }).errors;
    const detail =
      Array.isArray(errors) && errors.length > 0
        ? errors.map((e) => (e.param ? `${e.param}: ${e.message ?? ''}` : (e.message ?? ''))).join(' | ')
        : `HTTP ${response.status}`;
    throw new ObfuscationFailed(`Luraph refused the request: ${detail}`);
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
