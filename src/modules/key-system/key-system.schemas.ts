import { Type, type TSchema } from 'typebox';
import { Envelope, ErrorEnvelope, NullableString, Strict, Time } from '../../schemas.ts';

export const Provider = Type.Union([Type.Literal('none'), Type.Literal('linkvertise'), Type.Literal('workink'), Type.Literal('lootlabs')], {
  errorMessage: 'must be one of none, linkvertise, workink, lootlabs',
});

const NoControl = '^[^\\x00-\\x1F\\x7F]*$';

export const KeySystemSettings = Type.Object({
  enabled: Type.Boolean(),
  checkpoints: Type.Integer(),
  keyHours: Type.Integer(),
  minSecondsPerCheckpoint: Type.Integer(),
  provider: Provider,
  links: Type.Array(Type.String()),
  providerToken: NullableString,
  pageTitle: NullableString,
  accentColor: NullableString,
  maxKeysPerAddressPerDay: Type.Integer(),
  pageUrl: Type.String(),
});

export const KeySystemSettingsBody = Strict({
  enabled: Type.Optional(Type.Boolean()),
  checkpoints: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, errorMessage: 'must be a whole number from 1 to 5' })),
  keyHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, errorMessage: 'must be a whole number of hours from 1 to 720' })),
  minSecondsPerCheckpoint: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 600, errorMessage: 'must be a whole number of seconds from 0 to 600' }),
  ),
  provider: Type.Optional(Provider),
  links: Type.Optional(
    Type.Array(Type.String({ maxLength: 2048, pattern: '^https://[^\\x00-\\x20\\x7F]+$' }), {
      maxItems: 5,
      errorMessage: 'must be a list of at most 5 https URLs, one per checkpoint',
    }),
  ),
  providerToken: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 512, pattern: '^[\\x21-\\x7E]+$' }), Type.Null()], {
      errorMessage: 'must be the provider API token (1 to 512 printable characters) or null',
    }),
  ),
  pageTitle: Type.Optional(
    Type.Union([Type.String({ maxLength: 100, pattern: NoControl }), Type.Null()], {
      errorMessage: 'must be at most 100 characters, or null',
    }),
  ),
  accentColor: Type.Optional(
    Type.Union([Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' }), Type.Null()], {
      errorMessage: 'must be a colour written #rrggbb (for example #4c6ef5), or null for the default',
    }),
  ),
  maxKeysPerAddressPerDay: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1000, errorMessage: 'must be a whole number from 0 (no limit) to 1000' }),
  ),
});

export const ServiceParams = Strict({ service: Type.String({ minLength: 1, maxLength: 64 }) });
export const SessionParams = Strict({
  service: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', errorMessage: 'must be a session id' }),
});

export const StartBody = Strict({ captcha: Type.String({ minLength: 1, maxLength: 4096 }) });
export const CheckpointBody = Strict({
  token: Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9._~-]+$', errorMessage: 'must be the token the provider returned' }),
  ),
});

const IssuedKey = Type.Unsafe<{ key: string; expiresAt: string } | null>({
  type: ['object', 'null'],
  properties: { key: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } },
});

export const Started = Type.Object({
  sessionId: Type.String(),
  checkpoint: Type.Integer(),
  checkpoints: Type.Integer(),
  next: Type.String(),
});
export const Progress = Type.Object({ checkpoint: Type.Integer(), checkpoints: Type.Integer(), next: NullableString, key: IssuedKey });
export { Time };

/** The error envelope with the key system's extra fields (`reason`, `nextKeyAt`). */
const KeySystemError = Type.Object({
  ...ErrorEnvelope.properties,
  reason: Type.Optional(Type.String()),
  nextKeyAt: Type.Optional(Type.String()),
});

export const KeySystemResponses = <T extends TSchema>(data: T, status = 200) => ({
  [status]: Envelope(data),
  '4xx': KeySystemError,
  '5xx': KeySystemError,
});

// ?restart=1 offers a fresh start to a user whose session is stuck (a new session replaces the cookie).
// Other parameters (an ad network's or a forum's tracking) are ignored, as on any page a user is linked to.
export const KeyPageQuery = Type.Object({ restart: Type.Optional(Type.String({ maxLength: 8, errorMessage: 'must be 1 to start over' })) });

const ReturnParam = Type.Optional(Type.String({ maxLength: 256 }));
/** What a provider sends the user back with (each provider uses some of them). */
export const ReturnQuery = Type.Object({ session: ReturnParam, token: ReturnParam, hash: ReturnParam });
