import { Type } from 'typebox';
import { Strict, Time } from '../../schemas.ts';

export const EVENT_TYPES = [
  'key.redeemed',
  'key.banned',
  'key.deleted',
  'key.hwidReset',
  'keySystem.keyIssued',
  'order.delivered',
] as const;

export const EndpointBody = Strict({
  url: Type.String({ minLength: 1, maxLength: 2048, errorMessage: 'must be the https address of your receiver' }),
  events: Type.Array(Type.String({ maxLength: 64 }), {
    minItems: 1,
    maxItems: 16,
    errorMessage: `must list at least one event (${EVENT_TYPES.join(', ')}), or be ["*"] for all of them`,
  }),
});

export const Endpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  createdAt: Time,
});
export const CreatedEndpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  createdAt: Time,
  /** Shown only in this answer. */
  secret: Type.String(),
});
export const EndpointList = Type.Object({
  items: Type.Array(Endpoint),
  // The plain-http origins the operator allowed (EVENT_WEBHOOK_ORIGINS): an endpoint there is accepted as well as
  // any https one, so the dashboard's form can accept exactly what the server does.
  httpOrigins: Type.Array(Type.String()),
});
export const EndpointQuery = Strict({ id: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be an event endpoint id' }) });
export const EndpointParams = Strict({ id: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be an event endpoint id' }) });

export const Delivery = Type.Object({
  id: Type.String(),
  messageId: Type.String(),
  type: Type.String(),
  attempt: Type.Integer(),
  ok: Type.Boolean(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  attemptedAt: Time,
});
export const DeliveryList = Type.Object({ items: Type.Array(Delivery) });
export const TestSent = Type.Object({ messageId: Type.String() });
