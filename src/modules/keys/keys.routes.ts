import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalid } from '../../errors.ts';
import { Deleted, Responses } from '../../schemas.ts';
import { serviceOf } from '../../plugins/auth.ts';
import { actorOf } from '../audit/actor.ts';
import * as schemas from './keys.schemas.ts';
import * as keys from './keys.service.ts';
import { editActionOfBody } from './key-edit-role.ts';
import { scriptLoadstrings, snippetsFor, type ScriptLoadstring, type ScriptSnippet } from './loadstrings.ts';
import keysBulkRoutes from './keys-bulk.routes.ts';
import keysExportRoutes from './keys-export.routes.ts';
import keysImportRoutes from './keys-import.routes.ts';
import keysListRoutes from './keys-list.routes.ts';

const read = { auth: 'service', limit: 'api', action: 'keys.read' } as const;
// A lookup by note or HWID answers the oldest 1,000 matches; `truncated: true` (present only then) says more matched.
const LookupTruncated = Type.Literal(true, { description: 'present when more than 1,000 keys matched: only the oldest 1,000 are listed' });
const manage = { auth: 'service', limit: 'api', permission: 'allowManageKeys' } as const;
// Contract §17's actions: a key edit is support work (status, note, HWID, Discord user) unless it changes the key's terms.
const generate = { ...manage, action: 'keys.generate' } as const;
const support = { ...manage, action: 'keys.support' } as const;
// A key edit beyond support work (status, note, HWID, Discord user) changes the key's terms: keys.manage.
const editKey = { ...support, actionOfBody: editActionOfBody } as const;
const manageKeys = { ...manage, action: 'keys.manage' } as const;
const remove = { ...manage, action: 'keys.delete' } as const;
const tags = ['keys'];

/** "Exactly one of" lookups: the schema allows each, this insists on one. */
function exactlyOne<T extends Record<string, string | undefined>>(query: T, fields: (keyof T & string)[]) {
  const given = fields.filter((f) => query[f] !== undefined);
  if (given.length !== 1) throw invalid(fields[0]!, `Give exactly one of ${fields.join(', ')}`);
  const field = given[0]!;
  return { [field]: query[field]! } as never;
}

export default async function keyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  // Listing, bulk actions, export and import (contract §7.2–7.4) live in their own files.
  await app.register(keysListRoutes);
  await app.register(keysBulkRoutes);
  await app.register(keysExportRoutes);
  await app.register(keysImportRoutes);

  app.post(
    '/keys/api/generate',
    {
      config: generate,
      schema: {
        summary: 'Generate keys',
        description:
          'Creates `count` generated keys (32 letters and digits) with the given expiry (lifetime, days after redemption, or a date), note, premium, no-HWID-validation, max HWIDs and chat id. Needs allowManageKeys.',
        tags,
        body: schemas.GenerateBody,
        response: Responses(Type.Object({ keys: Type.Array(schemas.GeneratedKey) }), 201),
      },
    },
    async (request, reply) => {
      const rows = await keys.generateKeys(ctx, serviceOf(request).id, request.body, actorOf(request));
      return reply
        .status(201)
        .send({ success: true as const, data: { keys: rows.map((row) => keys.toGeneratedKeyView(row, ctx.clock())) } });
    },
  );

  app.get(
    '/keys/api/key',
    {
      config: read,
      schema: {
        summary: 'Look up active keys',
        description:
          'By `key`, `hwid` or `note` (oldest 1,000 matches; `truncated: true` when more matched). For whole pages use GET /keys/api/keys.',
        tags,
        querystring: schemas.ActiveKeyQuery,
        response: Responses(Type.Object({ keys: Type.Array(schemas.ActiveKey), truncated: Type.Optional(LookupTruncated) })),
      },
    },
    async (request) => {
      const { rows, truncated } = await keys.findActiveKeys(
        ctx,
        serviceOf(request).id,
        exactlyOne(request.query, ['key', 'hwid', 'note']),
        actorOf(request),
      );
      return {
        success: true as const,
        data: { keys: rows.map((row) => keys.toActiveKeyView(row, ctx.clock())), ...(truncated && { truncated }) },
      };
    },
  );

  app.put(
    '/keys/api/key',
    {
      config: editKey,
      schema: {
        summary: 'Edit an active key',
        description:
          'Changes only the fields sent (note, premium, no-HWID-validation, max HWIDs, HWIDs, status, expiry, chat id). Needs allowManageKeys.',
        tags,
        body: schemas.EditActiveKeyBody,
        response: Responses(schemas.ActiveKey),
      },
    },
    async (request) => {
      const { key, ...edit } = request.body;
      return {
        success: true as const,
        data: keys.toActiveKeyView(await keys.editActiveKey(ctx, serviceOf(request).id, key, edit, actorOf(request)), ctx.clock()),
      };
    },
  );

  app.delete(
    '/keys/api/key',
    {
      config: remove,
      schema: {
        summary: 'Delete an active key',
        description: 'Deletes the redeemed key `key` and its HWIDs. Needs allowManageKeys.',
        tags,
        querystring: schemas.KeyQuery,
        response: Responses(Deleted),
      },
    },
    async (request) => {
      await keys.deleteActiveKey(ctx, serviceOf(request).id, request.query.key, actorOf(request));
      return { success: true as const, data: { deleted: 1 } };
    },
  );

  app.post(
    '/keys/api/key/extend-expiration',
    {
      config: manageKeys,
      schema: {
        summary: "Extend a key's expiry",
        description:
          'Adds `days` to the later of now and the current expiry, for an active or a generated key, atomically (concurrent extensions add up). 422 LIFETIME_KEY for a key that never expires.',
        tags,
        body: schemas.ExtendBody,
        response: Responses(Type.Union([schemas.ActiveKey, schemas.GeneratedKey])),
      },
    },
    async (request) => {
      const result = await keys.extendKey(ctx, serviceOf(request).id, request.body.key, request.body.days, actorOf(request));
      return { success: true as const, data: result.view };
    },
  );

  app.get(
    '/keys/api/generated-key',
    {
      config: read,
      schema: {
        summary: 'Look up generated keys',
        description:
          'By `key`, or by `note` (oldest 1,000 matches; `truncated: true` when more matched). For whole pages use GET /keys/api/keys.',
        tags,
        querystring: schemas.GeneratedKeyQuery,
        response: Responses(Type.Object({ keys: Type.Array(schemas.GeneratedKey), truncated: Type.Optional(LookupTruncated) })),
      },
    },
    async (request) => {
      const { rows, truncated } = await keys.findGeneratedKeys(
        ctx,
        serviceOf(request).id,
        exactlyOne(request.query, ['key', 'note']),
        actorOf(request),
      );
      return {
        success: true as const,
        data: { keys: rows.map((row) => keys.toGeneratedKeyView(row, ctx.clock())), ...(truncated && { truncated }) },
      };
    },
  );

  app.put(
    '/keys/api/generated-key',
    {
      config: editKey,
      schema: {
        summary: 'Edit a generated key',
        description:
          'Changes only the fields sent (note, premium, no-HWID-validation, max HWIDs, status, expiry, chat id). Needs allowManageKeys.',
        tags,
        body: schemas.EditGeneratedKeyBody,
        response: Responses(schemas.GeneratedKey),
      },
    },
    async (request) => {
      const { key, ...edit } = request.body;
      return {
        success: true as const,
        data: keys.toGeneratedKeyView(await keys.editGeneratedKey(ctx, serviceOf(request).id, key, edit, actorOf(request)), ctx.clock()),
      };
    },
  );

  app.delete(
    '/keys/api/generated-key',
    {
      config: remove,
      schema: {
        summary: 'Delete a generated key',
        description: 'Deletes the generated (not yet redeemed) key `key`. Needs allowManageKeys; 404 when the service has no such key.',
        tags,
        querystring: schemas.KeyQuery,
        response: Responses(Deleted),
      },
    },
    async (request) => {
      await keys.deleteGeneratedKey(ctx, serviceOf(request).id, request.query.key, actorOf(request));
      return { success: true as const, data: { deleted: 1 } };
    },
  );

  app.get(
    '/keys/api/key/binding',
    {
      config: read,
      schema: {
        summary: 'Whether a key is bound',
        description: 'For `type` active or generated: bound or not, and the first HWID.',
        tags,
        querystring: schemas.BindingQuery,
        response: Responses(schemas.Binding),
      },
    },
    async (request) => ({
      success: true as const,
      data: await keys.keyBinding(ctx, serviceOf(request).id, request.query.key, request.query.type, actorOf(request)),
    }),
  );

  app.get(
    '/keys/api/key/by-chat',
    {
      config: read,
      schema: {
        summary: 'Keys linked to a chat user',
        description: 'The active and generated keys whose chat id is `chatId` (a Discord user id).',
        tags,
        querystring: schemas.ByChatQuery,
        response: Responses(schemas.ByChat),
      },
    },
    async (request) => {
      const service = serviceOf(request);
      const { keys: found, usableKey } = await keys.keysByChat(ctx, service.id, request.query.chatId, actorOf(request));
      const data: { chatId: string; keys: typeof found; loadstrings?: ScriptLoadstring[]; snippets?: ScriptSnippet[] } = {
        chatId: request.query.chatId,
        keys: found,
      };
      if (request.query.includeLoadstring === '1' && usableKey !== null) {
        data.loadstrings = await scriptLoadstrings(ctx, service.id);
        data.snippets = snippetsFor(data.loadstrings, usableKey);
      }
      return { success: true as const, data };
    },
  );

  app.post(
    '/keys/reset-hwid',
    // Never gated by a flag: the same action is public on the self-serve page, with the same cooldown.
    {
      config: { ...read, action: 'keys.support' },
      schema: {
        summary: "Reset a key's HWID",
        description:
          "Unbinds the key's HWIDs so the next device binds, under the service's cooldown (free and premium hours). Never gated by a permission flag: the same action is public on the self-serve page. 409 when the key is not bound, 429 HWID_RESET_COOLDOWN with retryAfter.",
        tags,
        body: schemas.ResetBody,
        response: Responses(schemas.ResetResult),
      },
    },
    async (request) => ({
      success: true as const,
      data: keys.resetAnswer(await keys.resetHwid(ctx, serviceOf(request), request.body.key, actorOf(request))),
    }),
  );

  app.post(
    '/keys/api/compensate',
    {
      config: manageKeys,
      schema: {
        summary: 'Compensate all keys',
        description:
          'Adds `days` to the expiry of every key of the service that has one (lifetime keys are left as they are), in one transaction, e.g. after downtime. Needs allowManageKeys; audited as keys.compensate.',
        tags,
        body: schemas.CompensateBody,
        response: Responses(Type.Object({ activeKeysUpdated: Type.Integer(), generatedKeysUpdated: Type.Integer() })),
      },
    },
    async (request) => ({
      success: true as const,
      data: await keys.compensate(ctx, serviceOf(request).id, request.body.days, actorOf(request)),
    }),
  );
}
