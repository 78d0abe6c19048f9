import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { invalid } from '../../errors.ts';
import { pageRequest } from '../../lib/pagination.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { Envelope, Page, Responses } from '../../schemas.ts';
import { hwidFrom } from '../validation/validation.schemas.ts';
import { executorOf } from '../../lib/executor.ts';
import { readNoBody } from '../../plugins/no-body.ts';
import * as schemas from './sessions.schemas.ts';
import * as sessions from './sessions.service.ts';

const client = { limit: 'client' } as const;
const tags = ['sessions'];
/** Client routes answer their errors with `reason` and `maxSessions` kept (the shared envelope would drop them). */
const clientResponses = (data: Parameters<typeof Envelope>[0], status: number) => ({
  [status]: Envelope(data),
  '4xx': schemas.SessionError,
  '5xx': schemas.SessionError,
});
const OPEN_DESCRIPTION =
  'Runs the validation of GET /keys/validate (`key`, `hwid`, optional `scriptId`); refused → 403 KEY_REFUSED with `reason`, a key at its `maxSessions` → 409 SESSION_LIMIT with `maxSessions`, else 201 with the session id and how often to heartbeat. With `ifNeeded` (what the loader sends), a run whose script has no `heartbeat` and whose key has no `maxSessions` opens nothing: 200 `{ needed: false }`.';
const HEARTBEAT_DESCRIPTION =
  '200 while the session lives; 410 SESSION_ENDED with `reason` (KEY_BANNED, KEY_PAUSED, KEY_EXPIRED, KEY_DELETED, HWID_RESET, HWID_BLACKLISTED, SCRIPT_DISABLED, KILLED, TIMED_OUT) once it ended, and for a ban its `banReason` and `banEndsAt`. Two missed periods end it.';

export default async function sessionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const open = async (
    request: FastifyRequest,
    reply: FastifyReply,
    service: string,
    input: { key?: string; hwid?: string; scriptId?: string; ifNeeded?: boolean | string; executor?: string },
  ) => {
    const ifNeeded = input.ifNeeded === true || (typeof input.ifNeeded === 'string' && /^(1|true|yes)$/i.test(input.ifNeeded));
    const hwid = hwidFrom(request, input.hwid, ctx.config.hwidHeaders);
    const executor = executorOf(input.executor);
    const data = await sessions.openSession(ctx, service, { key: input.key, scriptId: input.scriptId, hwid, ifNeeded, executor });
    return reply.status('sessionId' in data ? 201 : 200).send({ success: true as const, data });
  };
  const openResponses = { ...clientResponses(schemas.Opened, 201), 200: Envelope(schemas.NotNeeded) };

  app.post(
    '/public/sessions/:service',
    {
      config: client,
      schema: {
        summary: 'Open a live session',
        description: OPEN_DESCRIPTION,
        tags,
        params: schemas.ServiceParams,
        body: schemas.OpenInput,
        response: openResponses,
      },
    },
    (request, reply) => open(request, reply, request.params.service, request.body ?? {}),
  );
  app.get(
    '/public/sessions/:service/open',
    {
      config: client,
      schema: {
        summary: 'Open a live session (GET form)',
        description: `For executors with only game:HttpGet: the fields in the query string. ${OPEN_DESCRIPTION}`,
        tags,
        params: schemas.ServiceParams,
        querystring: schemas.OpenInput,
        response: openResponses,
      },
    },
    (request, reply) => open(request, reply, request.params.service, request.query),
  );

  const heartbeatSchema = (summary: string) => ({
    config: client,
    schema: {
      summary,
      description: HEARTBEAT_DESCRIPTION,
      tags,
      params: schemas.SessionParams,
      response: clientResponses(schemas.Alive, 200),
    },
  });
  // Not async: a heartbeat answered at once goes back as a plain value, which Fastify sends without a promise.
  const alive = <T>(data: T) => ({ success: true as const, data });
  const beat = (request: { params: { service: string; sessionId: string } }) => {
    const answer = sessions.heartbeat(ctx, request.params.service, request.params.sessionId);
    return answer instanceof Promise ? answer.then(alive) : alive(answer);
  };
  const HEARTBEAT = '/public/sessions/:service/:sessionId/heartbeat';
  await app.register(async (bodiless) => {
    readNoBody(bodiless);
    bodiless.post<{ Params: { service: string; sessionId: string } }>(HEARTBEAT, heartbeatSchema('Heartbeat a live session'), beat);
    bodiless.get<{ Params: { service: string; sessionId: string } }>(
      HEARTBEAT,
      heartbeatSchema('Heartbeat a live session (GET form)'),
      beat,
    );
  });
  // The heartbeat is the call every running script repeats: the hot lane answers it when it can (plugins/hot-lane.ts).
  for (const method of ['POST', 'GET'] as const) {
    const { schema } = heartbeatSchema('');
    app.hotLane.add<{ service: string; sessionId: string }, never>({
      method,
      url: `${app.prefix}${HEARTBEAT}`,
      params: schema.params,
      response: schema.response,
      handle: beat,
      // With REDIS_URL the live sessions are in Redis, where a heartbeat of a cached service does nothing before its
      // first await but add its item to the Redis batch: it may travel behind the client budget's count.
      startsWithBudget: ctx.redis !== null,
    });
  }

  const endSchema = (summary: string) => ({
    config: client,
    schema: {
      summary,
      description: 'The client ends its own session; its place is free at once. `ended: false` when it had already ended.',
      tags,
      params: schemas.SessionParams,
      response: clientResponses(schemas.Closed, 200),
    },
  });
  const close = async (request: FastifyRequest<{ Params: { service: string; sessionId: string } }>) => ({
    success: true as const,
    data: await sessions.closeSession(ctx, request.params.service, request.params.sessionId),
  });
  app.delete('/public/sessions/:service/:sessionId', endSchema('End a live session'), close);
  app.get('/public/sessions/:service/:sessionId/end', endSchema('End a live session (GET form)'), close);

  app.get(
    '/keys/api/sessions',
    {
      config: { auth: 'service', limit: 'api', action: 'keys.read' },
      schema: {
        summary: 'List live sessions',
        description: "One page of the service's live sessions, newest first; filters `key` and `scriptId`.",
        tags,
        querystring: schemas.ListQuery,
        response: Responses(Page(schemas.ListedSession)),
      },
    },
    async (request) => ({
      success: true as const,
      data: await sessions.listSessions(
        ctx,
        serviceOf(request).id,
        { key: request.query.key, scriptId: request.query.scriptId },
        pageRequest(request.query),
        actorOf(request),
      ),
    }),
  );

  app.post(
    '/keys/api/sessions/kill',
    {
      config: { auth: 'service', limit: 'api', permission: 'allowManageKeys', action: 'service.configure' },
      schema: {
        summary: 'End live sessions',
        description:
          "Ends a key's live sessions (`key`) or one session (`sessionId`) with reason KILLED; their next heartbeat answers 410.",
        tags,
        body: schemas.KillBody,
        response: Responses(schemas.Killed),
      },
    },
    async (request) => {
      const { key, sessionId } = request.body;
      if ((key === undefined) === (sessionId === undefined)) throw invalid('key', 'Give exactly one of key, sessionId');
      const selector = key !== undefined ? { key } : { sessionId: sessionId! };
      return { success: true as const, data: await sessions.killSessions(ctx, serviceOf(request).id, selector) };
    },
  );
}
