import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import secureJson from 'secure-json-parse';
import { invalid } from '../../errors.ts';
import { ErrorEnvelope, Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import { Settings } from '../service-settings/service-settings.schemas.ts';
import * as chat from './chat.service.ts';
import {
  ChatStatus,
  ConnectBody,
  DisconnectBody,
  InteractionAnswer,
  PanelBody,
  PanelResult,
  ServiceParam,
  SyncBody,
  SyncResult,
} from './chat.schemas.ts';
import { chatStatus, postPanel, syncCommands } from './chat-setup.service.ts';

const manage = { auth: 'service', permission: 'allowManageKeys', limit: 'api' } as const;
const read = { auth: 'service', limit: 'api' } as const;
const tags = ['chat'];

/** The platform signs the exact bytes it sent: this scope keeps them instead of parsing JSON first. */
async function interactionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post(
    '/chat/interactions/:service',
    {
      schema: {
        summary: 'Discord interactions endpoint',
        description:
          "Discord calls it with slash commands for the service; every request must carry a valid Ed25519 signature from the service's public key, else 401. Answers pings and commands as Discord expects.",
        tags,
        params: ServiceParam,
        response: { 200: InteractionAnswer, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      const service = await chat.authenticInteractionService(
        ctx,
        request.params.service,
        raw,
        header('x-signature-ed25519'),
        header('x-signature-timestamp'),
      );
      let interaction: unknown;
      try {
        interaction = secureJson.parse(raw.toString('utf8'), undefined, { protoAction: 'remove', constructorAction: 'remove' });
      } catch {
        throw invalid('body', 'The request body is not valid JSON');
      }
      if (interaction === null || typeof interaction !== 'object' || Array.isArray(interaction)) {
        throw invalid('body', 'The request body must be a JSON object');
      }
      return chat.handleInteraction(ctx, service, interaction as chat.Interaction);
    },
  );
}

export default async function chatRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/keys/api/chat/connect',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Bind a Discord server',
        description:
          "Links a Discord server (guild id and name) to the service, so its slash commands (/redeem, /resethwid, /script) act on this service's keys.",
        tags,
        body: ConnectBody,
        response: Responses(Settings),
      },
    },
    async (request) => ({
      success: true as const,
      data: await chat.connectGuild(ctx, serviceOf(request), request.body.guildId, request.body.guildName, actorOf(request)),
    }),
  );

  app.post(
    '/keys/api/chat/disconnect',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Unbind the Discord server',
        description: 'Stops slash commands from that server acting on this service.',
        tags,
        body: DisconnectBody,
        response: Responses(Settings),
      },
    },
    async (request) => ({ success: true as const, data: await chat.disconnectGuild(ctx, serviceOf(request), actorOf(request)) }),
  );

  app.post(
    '/keys/api/chat/commands/sync',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Register the Discord commands',
        description:
          "Registers every Keyward slash command (/redeem, /script, /resethwid and the staff commands) in the bound server, with the application id, bot token and public key from the settings. Saving any of those settings does it too. 502 PROVIDER_UNAVAILABLE with Discord's refusal in words when Discord refuses or does not answer.",
        tags,
        body: SyncBody,
        response: Responses(SyncResult),
      },
    },
    async (request) => ({ success: true as const, data: await syncCommands(ctx, serviceOf(request), actorOf(request)) }),
  );

  app.get(
    '/keys/api/chat/status',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'Discord setup checklist',
        description:
          "Read live from Discord's API (each call within a few seconds): whether signed interactions arrived, when commands were synced, whether the bot is in the server, can manage roles, and can post in the staff log channel; `lastError` says what Discord last refused.",
        tags,
        response: Responses(ChatStatus),
      },
    },
    async (request) => ({ success: true as const, data: await chatStatus(ctx, serviceOf(request)) }),
  );

  app.post(
    '/keys/api/chat/panel',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Post the buyer panel',
        description:
          'Posts a message with five buttons (Redeem key, Get script, Reset HWID, Get role, My key) to a channel of the bound server. Each post is a new message.',
        tags,
        body: PanelBody,
        response: Responses(PanelResult, 201),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return { success: true as const, data: await postPanel(ctx, serviceOf(request), request.body, actorOf(request)) };
    },
  );

  await app.register(interactionRoutes);
}
