import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import * as settings from './service-settings.service.ts';
import { Settings, Info, Status, Executions, ExecutionBody, SettingsBody } from './service-settings.schemas.ts';
const tags = ['service'];

export default async function serviceSettingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const read = { auth: 'service', limit: 'api' } as const;
  const manage = { ...read, permission: 'allowManageKeys' } as const;

  app.get(
    '/keys/api/service/info',
    {
      config: { ...read, action: 'keys.read' },
      schema: {
        summary: 'Service overview',
        description: 'The service and its settings (the webhook URL masked).',
        tags,
        response: Responses(Info),
      },
    },
    async (request) => ({
      success: true as const,
      data: settings.serviceInfo(serviceOf(request)),
    }),
  );

  app.get(
    '/keys/api/service/status',
    {
      config: { ...read, action: 'keys.insights' },
      schema: {
        summary: 'Service status',
        description: 'Key, keyless HWID and ban counts of the service.',
        tags,
        response: Responses(Status),
      },
    },
    async (request) => ({
      success: true as const,
      data: await settings.serviceStatus(ctx, serviceOf(request)),
    }),
  );

  // Never gated by a flag (contract §2): loaders call it with a read-only key.
  app.post(
    '/keys/api/execution',
    {
      config: { ...read, action: 'service.configure' },
      schema: {
        summary: 'Count an execution',
        description: 'Adds one execution to the service (and to the key when given), for loaders that do not fetch through Keyward.',
        tags,
        body: ExecutionBody,
        response: Responses(Executions),
      },
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request) => ({
      success: true as const,
      data: await settings.recordExecution(ctx, serviceOf(request).id, request.body.key),
    }),
  );

  app.get(
    '/keys/api/execution',
    {
      config: { ...read, action: 'keys.insights' },
      schema: { summary: 'Execution count', description: 'Total executions of the service.', tags, response: Responses(Executions) },
    },
    async (request) => ({
      success: true as const,
      data: await settings.executionCount(ctx, serviceOf(request).id),
    }),
  );

  app.put(
    '/keys/api/settings',
    {
      config: { ...manage, action: 'service.configure' },
      schema: {
        summary: 'Change service settings',
        description:
          'Webhook URL (a chat-platform webhook; stored with its token sealed) and switch, HWID reset cooldowns, chat public key. Fields not sent keep their value.',
        tags,
        body: SettingsBody,
        response: Responses(Settings),
      },
    },
    async (request) => ({
      success: true as const,
      data: await settings.updateSettings(ctx, serviceOf(request), request.body, actorOf(request)),
    }),
  );
}
