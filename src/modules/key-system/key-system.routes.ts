import { cookiesOf } from '../../lib/cookies.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { serviceForClient } from '../services/services.service.ts';
import type { ServiceRow } from '../services/services.service.ts';
import { htmlPage, PAGE_CSP } from '../../lib/html.ts';
import { KEY_SYSTEM_SCRIPT, keyPage, notFoundPage, returnPage } from './key-system.page.ts';
import { TOKEN_PARAMS } from './key-system.providers.ts';
import * as keySystem from './key-system.service.ts';
import {
  CheckpointBody,
  KeySystemResponses,
  KeySystemSettings,
  KeySystemSettingsBody,
  Progress,
  ServiceParams,
  SessionParams,
  StartBody,
  Started,
  KeyPageQuery,
  ReturnQuery,
} from './key-system.schemas.ts';

const tags = ['key-system'];

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, service: ServiceRow, value: string) {
  const secure = request.server.ctx.config.baseUrl.startsWith('https:');
  // Lax, not Strict: the user comes back from the ad provider by a top-level navigation.
  reply.setCookie(keySystem.sessionCookieName(service), value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: keySystem.SESSION_TTL_MS / 1000,
  });
}

const sessionCookie = (request: FastifyRequest, service: ServiceRow) => cookiesOf(request)[keySystem.sessionCookieName(service)];

/** GET/PUT /api/v1/keys/api/key-system: the seller's settings (contract §8). */
export async function keySystemSettingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const read = { auth: 'service', limit: 'api' } as const;

  app.get(
    '/keys/api/key-system',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'Key-system settings',
        description:
          'The service\'s key system (contract §8): on or off, provider, checkpoints, key hours, limits, page title, and the public get-key page address. Provider tokens are never shown, only whether one is set ("****"). Not gated by a permission flag: like every GET outside /vss/api (contract §2, §7), a read needs only the service key; allowManageKeys gates the PUT.',
        tags,
        response: Responses(KeySystemSettings),
      },
    },
    async (request) => {
      const service = serviceOf(request);
      return { success: true as const, data: keySystem.settingsView(ctx, service, await keySystem.loadSettings(ctx, service.id)) };
    },
  );

  app.put(
    '/keys/api/key-system',
    {
      config: { ...read, permission: 'allowManageKeys', action: 'service.configure' },
      schema: {
        summary: 'Change the key-system settings',
        description:
          "Needs allowManageKeys. Only the fields sent change. Every provider but none needs links (one per checkpoint) and providerToken: the Linkvertise anti-bypassing token, the Lootlabs API token, or for Work.ink the seller's Work.ink link ids (digits, comma-separated), since Work.ink's check needs no key and a token must come from one of those links. Audited as keySystem.update.",
        tags,
        body: KeySystemSettingsBody,
        response: Responses(KeySystemSettings),
      },
    },
    async (request) => ({
      success: true as const,
      data: await keySystem.updateSettings(ctx, serviceOf(request), request.body, actorOf(request)),
    }),
  );
}

/** The public session API the get-key page calls. Every route spends the client budget of its service. */
export async function publicKeySystemRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const config = { limit: 'client' } as const;

  app.post(
    '/public/key-system/:service/sessions',
    {
      config,
      schema: {
        summary: 'Start a get-key session',
        description:
          "Public, for the get-key page: needs a solved captcha, sets the cookie that binds the session to this browser, and answers the first checkpoint's link. KEY_SYSTEM_DISABLED while the key system is off; 429 KEY_SYSTEM_LIMIT with nextKeyAt once this address earned its keys for the day.",
        tags,
        params: ServiceParams,
        body: StartBody,
        response: KeySystemResponses(Started, 201),
      },
    },
    async (request, reply) => {
      const service = await serviceForClient(ctx, request.params.service);
      const started = await keySystem.startSession(ctx, service, { captcha: request.body.captcha, address: request.ip });
      setSessionCookie(request, reply, service, started.cookie);
      return reply.status(201).send({ success: true as const, data: started.data });
    },
  );

  app.post(
    '/public/key-system/:service/sessions/:id/checkpoint',
    {
      config,
      schema: {
        summary: 'Pass a checkpoint',
        description:
          "Public: the provider's return token (none for provider none) is checked with the provider and spent once on every instance. CHECKPOINT_FAILED with reason too-fast, token-invalid or token-reused; 502 PROVIDER_UNAVAILABLE when the provider cannot be asked (never a free key). The last checkpoint issues the key.",
        tags,
        params: SessionParams,
        body: CheckpointBody,
        response: KeySystemResponses(Progress),
      },
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request) => {
      const service = await serviceForClient(ctx, request.params.service);
      return {
        success: true as const,
        data: await keySystem.passCheckpoint(ctx, service, request.params.id, sessionCookie(request, service), request.body.token),
      };
    },
  );

  app.get(
    '/public/key-system/:service/sessions/:id',
    {
      config,
      schema: {
        summary: 'Where a get-key session stands',
        description:
          'Public, for the browser that started the session (its cookie): the checkpoint reached, and the key with its expiry once earned. Another browser gets 404.',
        tags,
        params: SessionParams,
        response: KeySystemResponses(Progress),
      },
    },
    async (request) => {
      const service = await serviceForClient(ctx, request.params.service);
      return {
        success: true as const,
        data: await keySystem.sessionState(ctx, service, request.params.id, sessionCookie(request, service)),
      };
    },
  );
}

/** The get-key page and the provider's return page, at /key. */
export async function keySystemPageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const hide = { hide: true };
  const config = { limit: 'client' } as const;

  app.get('/key/assets/key-system.js', { config, schema: hide }, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(KEY_SYSTEM_SCRIPT),
  );

  /** The service and its settings when its key system is on; null answers the 404 page. */
  async function enabledService(ref: string) {
    try {
      const service = await serviceForClient(ctx, ref);
      const settings = await keySystem.loadSettings(ctx, service.id);
      return settings.enabled ? { service, settings } : null;
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  const html = (reply: FastifyReply) =>
    reply
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8');

  app.get('/key/:service', { config, schema: { ...hide, params: ServiceParams, querystring: KeyPageQuery } }, async (request, reply) => {
    html(reply);
    const found = await enabledService(request.params.service);
    if (!found) return reply.status(404).send(notFoundPage());
    const restart = request.query.restart === '1';
    const session = restart ? null : await keySystem.findServiceSession(ctx, found.service, sessionCookie(request, found.service));
    return reply.send(keyPage(found.service, found.settings, session));
  });

  app.get(
    '/key/:service/return',
    { config, schema: { ...hide, params: ServiceParams, querystring: ReturnQuery } },
    async (request, reply) => {
      html(reply);
      const found = await enabledService(request.params.service);
      if (!found) return reply.status(404).send(notFoundPage());
      const query = request.query;
      // Work.ink and static Linkvertise links return without our session id: the browser's cookie names it.
      const sessionId = query.session || keySystem.parseSessionCookie(sessionCookie(request, found.service))?.id;
      if (!sessionId) {
        return reply
          .status(404)
          .send(
            htmlPage(
              'Session not found',
              `<h1>Session not found</h1><p>Start again from the <a href="/key/${encodeURIComponent(found.service.identifier)}">get-key page</a>.</p>`,
            ),
          );
      }
      const token = TOKEN_PARAMS.map((name) => query[name]).find((value) => value) ?? null;
      return reply.send(returnPage(found.service, found.settings, sessionId, token));
    },
  );
}
