import { Type } from 'typebox';
import { Strict } from '../../schemas.ts';

export const ConnectBody = Strict({
  guildId: Type.String({ pattern: '^[0-9]{17,20}$', errorMessage: 'must be a chat server id of 17 to 20 digits' }),
  guildName: Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be 1 to 100 characters' }),
});
// No input; no body or an empty JSON object is tolerated, any field is not (and is named in the 400).
// `nullable` rather than a union with null, so Ajv reports the unknown field itself.
export const DisconnectBody = Strict({}, { nullable: true });

export const InteractionAnswer = Type.Union([
  Type.Object({ type: Type.Literal(1) }),
  Type.Object({
    type: Type.Literal(4),
    data: Type.Object({
      content: Type.String(),
      flags: Type.Literal(64),
      allowed_mentions: Type.Object({ parse: Type.Array(Type.String(), { maxItems: 0 }) }),
    }),
  }),
]);
export const ServiceParam = Type.Object({ service: Type.String({ minLength: 1, maxLength: 64 }) });
