import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import proxyAddr from '@fastify/proxy-addr';
import querystring from 'fast-querystring';
import { errorAnswer } from './errors.ts';
import { lazyChild } from '../lib/lazy-child-logger.ts';
import type { AppContext } from '../context.ts';
import { clientTarget, type ClientBudget } from './rate-limit.ts';
import { ajvOptions, unstorableAt } from './validation.ts';
import { TurnWrites } from '../lib/turn-writes.ts';

/** What a hot route is given, as its Fastify route would see it once validated. */
export interface HotRequest<Params = Record<string, string>, Query = Record<string, unknown>> {
  /** As the route's `params` schema accepted them. */
  params: Params;
  /** As the route's `querystring` schema accepted it. */
  query: Query;
  headers: IncomingHttpHeaders;
}

/**
 * A route the lane may answer. It is also a Fastify route (same method, URL and schemas), which answers every request
 * the lane leaves: the lane only ever takes a request whose answer the route's handler decides.
 */
export interface HotRoute<Params = Record<string, string>, Query = Record<string, unknown>> {
  method: 'GET' | 'POST';
  /** The Fastify route's URL with its prefix, `:name` for a parameter. */
  url: string;
  params?: TSchema;
  querystring?: TSchema;
  /** The Fastify route's `response` schemas: the lane serializes with the same ones. */
  response: Record<string, TSchema>;
  /**
   * The route's handler: the payload it answers with (or a promise of it), serialized by the response schemas, or a
   * RawAnswer sent as it stands; what it throws is answered as an error.
   */
  handle(request: HotRequest<Params, Query>): unknown;
  /**
   * The handler may start before the client budget's count answers (ClientBudget.spendThen): true only where its sole
   * effect before its first await is items of the Redis batch, which then wait behind the count in one call.
   */
  startsWithBudget?: boolean;
}

/**
 * An answer sent as it stands rather than serialized as JSON (the fetch's Lua and code): its status, its headers and
 * a body of text, bytes, a stream or nothing. The lane writes it; the route's Fastify handler sends the same through
 * `sendRaw`, so both give the same bytes.
 */
export class RawAnswer {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string | Buffer | Readable | null,
  ) {}
}

/** A RawAnswer through Fastify's reply (what the lane writes itself when it takes the request). */
export function sendRaw(reply: FastifyReply, answer: RawAnswer): FastifyReply {
  return reply
    .code(answer.status)
    .headers(answer.headers)
    .send(answer.body ?? undefined);
}

interface Compiled {
  route: HotRoute;
  pattern: RegExp;
  names: string[];
  validParams?: (value: unknown) => boolean;
  validQuery?: (value: unknown) => boolean;
  serializers: Map<string, (payload: unknown) => string>;
}

// find-my-way refuses longer parameters (a 404); the lane leaves them to it.
const MAX_PARAM_LENGTH = 100;
const JSON_TYPE = 'application/json; charset=utf-8';
type Window = { count: number; resetAt: number };

/**
 * The executor's hottest calls (a heartbeat, a validation, a script's fetch) answered in front of Fastify's request
 * pipeline, which costs more than the calls' own work: the lane answers a heartbeat with a fifth less CPU and a fetch
 * of a 220 KB script with 15 % less (docs/benchmarks.md, thirteenth and twentieth sessions).
 * The lane does what Fastify's route would, through the same pieces: the route's schemas (compiled as Fastify compiles
 * them), the client budget (ClientBudget), the route's handler, the error envelope (errorAnswer), the request id. It
 * writes its answers together at the end of each turn of the event loop (TurnWrites), where Fastify writes each at once.
 * Whatever is not the common case goes to Fastify untouched, before the lane has counted or done anything: an unknown
 * method or path, a percent-encoded path, a query the schema refuses or that holds text the databases cannot store, a
 * service not yet cached (with a budget to spend), a server shutting down, request lines being logged (LOG_LEVEL info
 * or below), metrics on.
 */
export class HotLane {
  private readonly byMethod = new Map<string, Compiled[]>();
  private readonly compileValidator = AjvCompiler()({}, ajvOptions as never);
  private readonly compileSerializer = SerializerSelector()({}, {});
  private readonly ipOf: (request: IncomingMessage) => string | undefined;
  /** Every answer the lane decides, written at the end of its turn with the others. */
  private readonly writes: TurnWrites;
  /** How many requests the lane answered itself: what shows the tests it took the calls it should. */
  answered = 0;

  constructor(
    private readonly deps: {
      /** Fastify's own request listener: every request the lane leaves. */
      fastify: RequestListener;
      ctx: AppContext;
      budget: ClientBudget | null;
      /** The request ids Fastify gives (its genReqId). */
      requestId: () => string;
      log: FastifyBaseLogger;
      trustProxy: boolean | string[] | ((address: string, hop: number) => boolean);
      /** False while the server shuts down (Fastify answers 503). */
      open: () => boolean;
      /** False while request lines are logged or metrics counted: Fastify's hooks do those. */
      enabled: boolean;
    },
  ) {
    this.writes = new TurnWrites((err) => deps.log.error({ err }, 'writing an answer failed'));
    const trust = deps.trustProxy;
    // As Fastify's request.ip reads it (fastify/lib/request.js).
    if (trust === false) this.ipOf = (request) => request.socket.remoteAddress;
    else {
      const allows = typeof trust === 'function' ? trust : trust === true ? () => true : proxyAddr.compile(trust);
      this.ipOf = (request) => proxyAddr(request, allows);
    }
  }

  add<Params, Query>(typed: HotRoute<Params, Query>): void {
    // The schemas checked the shapes before the route sees them.
    const route = typed as unknown as HotRoute;
    const names: string[] = [];
    const source = route.url
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return `([^/?;#%]{1,${MAX_PARAM_LENGTH}})`;
      })
      .join('/');
    const compiled: Compiled = {
      route,
      // A trailing slash, a `;` or `#` and percent-encoded paths are read by find-my-way's own rules: left to it.
      pattern: new RegExp(`^${source}(?:\\?([^;#]*))?$`),
      names,
      serializers: new Map(),
    };
    if (route.params)
      compiled.validParams = this.compileValidator({ schema: route.params, method: route.method, url: route.url, httpPart: 'params' });
    if (route.querystring)
      compiled.validQuery = this.compileValidator({
        schema: route.querystring,
        method: route.method,
        url: route.url,
        httpPart: 'querystring',
      });
    for (const [status, schema] of Object.entries(route.response))
      compiled.serializers.set(status, this.compileSerializer({ schema, method: route.method, url: route.url, httpStatus: status }));
    const list = this.byMethod.get(route.method) ?? [];
    list.push(compiled);
    this.byMethod.set(route.method, list);
  }

  /** Fastify's listener, which answers every request the lane leaves. */
  get behind(): RequestListener {
    return this.deps.fastify;
  }

  /** The server's request listener: the lane's answer, or Fastify's. */
  readonly dispatch: RequestListener = (request, response) => {
    if (!this.take(request, response)) this.deps.fastify(request, response);
  };

  private take(request: IncomingMessage, response: ServerResponse): boolean {
    const routes = this.deps.enabled ? this.byMethod.get(request.method ?? '') : undefined;
    if (!routes || !this.deps.open()) return false;
    const url = request.url ?? '';
    for (const compiled of routes) {
      const match = compiled.pattern.exec(url);
      if (match) return this.answer(compiled, match, request, response);
    }
    return false;
  }

  private answer(compiled: Compiled, match: RegExpExecArray, request: IncomingMessage, response: ServerResponse): boolean {
    const params: Record<string, string> = {};
    compiled.names.forEach((name, i) => (params[name] = match[i + 1]!));
    if (compiled.validParams && !compiled.validParams(params)) return false;
    const raw = match[compiled.names.length + 1];
    const query = (raw ? querystring.parse(raw) : {}) as Record<string, unknown>;
    if (raw?.includes('%') && unstorableAt(query, '') !== null) return false;
    if (compiled.validQuery && !compiled.validQuery(query)) return false;
    const hot: HotRequest = { params, query, headers: request.headers };
    // The budget the route's hook would spend; a service not yet cached is looked up by the route itself.
    const target = this.deps.budget ? clientTarget(this.deps.ctx, hot) : '';
    if (typeof target !== 'string') return false;

    // From here the lane answers: the budget is spent.
    this.answered++;
    dropBody(request);
    const requestId = this.deps.requestId();
    const headers: OutgoingHttpHeaders = { 'x-request-id': requestId };
    const { budget } = this.deps;
    if (!budget) {
      this.run(compiled, hot, headers, requestId, response);
      return true;
    }
    const now = Date.now();
    const ip = this.ipOf(request) ?? '';
    // A route that starts with its budget has already started (its Redis items wait behind the count); any other
    // starts once the count allows it.
    const early = compiled.route.startsWithBudget === true;
    let window: Window | Promise<Window>;
    let result: unknown;
    if (early) ({ window, result } = budget.spendThen(ip, target, now, () => this.start(compiled, hot)));
    else window = budget.spend(ip, target, now);
    const judged = (counted: Window) => {
      const refused = budget.judge(counted, now, (name, value) => (headers[name] = String(value)));
      // A refused call's work never ran, or its items were held back (GateShut): what it answers is dropped.
      if (refused) this.fail(compiled, refused, headers, requestId, response);
      else this.finish(compiled, early ? result : this.start(compiled, hot), headers, requestId, response);
    };
    if (window instanceof Promise) {
      // Settled in the same reply as the count: marked handled now, as a refusal drops it.
      if (result instanceof Promise) result.catch(() => {});
      window.then(judged, (err: unknown) => this.fail(compiled, err, headers, requestId, response));
    } else judged(window);
    return true;
  }

  private run(compiled: Compiled, hot: HotRequest, headers: OutgoingHttpHeaders, requestId: string, response: ServerResponse): void {
    this.finish(compiled, this.start(compiled, hot), headers, requestId, response);
  }

  /** The handler's payload, a promise of it, or what it threw as a rejected promise. */
  private start(compiled: Compiled, hot: HotRequest): unknown {
    try {
      return compiled.route.handle(hot);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private finish(compiled: Compiled, payload: unknown, headers: OutgoingHttpHeaders, requestId: string, response: ServerResponse): void {
    if (payload instanceof Promise)
      payload.then(
        (resolved: unknown) => this.send(compiled, 200, resolved, headers, response),
        (err: unknown) => this.fail(compiled, err, headers, requestId, response),
      );
    else this.send(compiled, 200, payload, headers, response);
  }

  private fail(compiled: Compiled, err: unknown, headers: OutgoingHttpHeaders, requestId: string, response: ServerResponse): void {
    const { status, body } = errorAnswer(err, requestId, lazyChild(this.deps.log, { reqId: requestId }));
    if (body.retryAfter !== undefined) headers['retry-after'] = String(body.retryAfter);
    this.send(compiled, status, body, headers, response);
  }

  /** As Fastify's reply: the schema for the status (exact, then `4xx`, then `default`), else JSON. */
  private send(compiled: Compiled, status: number, payload: unknown, headers: OutgoingHttpHeaders, response: ServerResponse): void {
    if (payload instanceof RawAnswer) return this.writeRaw(payload, headers, response);
    const code = String(status);
    const serialize = compiled.serializers.get(code) ?? compiled.serializers.get(`${code[0]}xx`) ?? compiled.serializers.get('default');
    let body: string;
    try {
      body = serialize ? serialize(payload) : JSON.stringify(payload);
    } catch (err) {
      // An answer its schema cannot carry is our bug: a 500 in the envelope, as Fastify's serializer error gives.
      const requestId = String(headers['x-request-id']);
      const failed = errorAnswer(err, requestId, lazyChild(this.deps.log, { reqId: requestId }));
      return this.write(failed.status, JSON.stringify(failed.body), headers, response);
    }
    this.write(status, body, headers, response);
  }

  /** As Fastify's reply sends text, bytes or a stream: a length for the first two, a stream piped (chunked unless given). */
  private writeRaw(answer: RawAnswer, headers: OutgoingHttpHeaders, response: ServerResponse): void {
    Object.assign(headers, answer.headers);
    const { body } = answer;
    if (body instanceof Readable) {
      response.writeHead(answer.status, headers);
      pipeline(body, response, (err) => {
        // Either way pipeline has destroyed both: the source stops reading, and the client, which had the status and
        // part of the body, sees its connection cut. A client that left first is no failure of ours.
        if (err && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
          this.deps.log.warn({ err, reqId: headers['x-request-id'] }, 'streaming an answer failed');
      });
      return;
    }
    if (body !== null && headers['content-length'] === undefined) headers['content-length'] = String(Buffer.byteLength(body));
    this.writes.add(response, answer.status, headers, body ?? undefined);
  }

  private write(status: number, body: string, headers: OutgoingHttpHeaders, response: ServerResponse): void {
    headers['content-type'] = JSON_TYPE;
    headers['content-length'] = String(Buffer.byteLength(body));
    this.writes.add(response, status, headers, body);
  }
}

/**
 * The lane's routes read no body (a heartbeat's `{}`): marked as Node marks a request whose body nobody read once its
 * answer is sent (IncomingMessage._dump), but now, before the body is parsed, so Node's parser drops its bytes instead
 * of queueing them on the request's stream, and the stream is never made to flow afterwards only to end: a seventh of a
 * heartbeat's CPU (docs/benchmarks.md, fourteenth session). The flag is Node's own; a Node without it reads the body
 * and drops it after the answer, as before. The request then never ends, so its parser keeps it until the
 * connection's next request, where Node would have let it go at once.
 */
function dropBody(request: IncomingMessage): void {
  (request as IncomingMessage & { _dumped?: boolean })._dumped = true;
}
