import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { LicenseKey, NullableString, NullableTime, Responses, Strict, Time } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import * as settings from './service-settings.service.ts';

export const Settings = Type.Object({
  webhookUrl: NullableString,
  webhookEnabled: Type.Boolean(),
  hwidResetCooldownFreeHours: Type.Integer(),
  hwidResetCooldownPremiumHours: Type.Integer(),
  chatInteractionsPublicKey: NullableString,
  chat: Type.Union([Type.Object({ guildId: Type.String(), guildName: Type.String() }), Type.Null()]),
});
const Info = Type.Object({ id: Type.String(), identifier: Type.String(), name: Type.String(), createdAt: Time, settings: Settings });
const Status = Type.Object({
  activeKeys: Type.Integer(),
  generatedKeys: Type.Integer(),
  keylessEntries: Type.Integer(),
  blacklistedHwids: Type.Integer(),
  totalExecutions: Type.Integer(),
});
const Executions = Type.Object({ executions: Type.Integer(), lastActiveAt: NullableTime });
// The body is optional; a missing one becomes {} before validation (see the route) rather than a
// union with null, whose failure would name the whole body instead of the offending field.
const ExecutionBody = Strict({ key: Type.Optional(LicenseKey) });
const Hours = Type.Integer({ minimum: 0, maximum: 720, errorMessage: 'must be a whole number of hours from 0 to 720' });
const SettingsBody = Strict({
  webhookUrl: Type.Optional(Type.Union([Type.String({ maxLength: 512 }), Type.Null()], { errorMessage: 'must be a webhook URL or null' })),
  webhookEnabled: Type.Optional(Type.Boolean()),
  hwidResetCooldownFreeHours: Type.Optional(Hours),
  hwidResetCooldownPremiumHours: Type.Optional(Hours),
  chatInteractionsPublicKey: Type.Optional(
    Type.Union([Type.String({ pattern: '^[0-9a-fA-F]{64}$' }), Type.Null()], { errorMessage: 'must be 64 hexadecimal characters or null' }),
  ),
});
const tags = ['service'];

export default async function serviceSettingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const read = { auth: 'service', limit: 'api' } as const;
  const manage = { ...read, permission: 'allowManageKeys' } as const;

  app.get(
    '/keys/api/service/info',
    {
      config: read,
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
      config: read,
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
      config: read,
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
      config: read,
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
      config: manage,
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
