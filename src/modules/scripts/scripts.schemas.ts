import { Type } from 'typebox';
import { PageQuery, Strict, Time } from '../../schemas.ts';
import { ExecutorRuleSchema } from './executor-rule.ts';

const UUID_SHAPE = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

export const ScriptName = Type.String({
  pattern: `^(?!${UUID_SHAPE}$)[A-Za-z0-9_.-]{1,64}$`,
  errorMessage: 'must be 1 to 64 characters of A-Z, a-z, 0-9, _, . and -, and not shaped like a UUID',
});
export const ObfuscationTypeSchema = Type.Union(
  [Type.Literal('NONE'), Type.Literal('IB1'), Type.Literal('LURAPH'), Type.Literal('WYNFUSCATOR')],
  { errorMessage: 'must be one of NONE, IB1, LURAPH, WYNFUSCATOR' },
);
// The size limit (41,943,040 bytes as UTF-8) is enforced while the body streams in (413), see body-parser.ts.
const Code = Type.String({ minLength: 1, errorMessage: 'must be a non-empty string of at most 41,943,040 bytes as UTF-8' });

const Enabled = Type.Boolean({ errorMessage: 'must be true (the script runs) or false (switched off)' });
const DisabledMessage = Type.Union([Type.String({ maxLength: 200, pattern: '^[^\\x00]*$' }), Type.Null()], {
  errorMessage: 'must be a message of at most 200 characters, or null for the default sentence',
});

// Luarmor's script options (contract §16.3).
const Ffa = Type.Boolean({ errorMessage: 'must be true (anyone may run it without a key) or false' });
const Silent = Type.Boolean({ errorMessage: 'must be true (the loader prints nothing) or false' });
/** Every run opens a live session and heartbeats, so a ban ends it within two periods (contract §18). */
const Heartbeat = Type.Boolean({ errorMessage: 'must be true (every run opens a live session) or false' });

export const CreateBody = Strict({
  name: ScriptName,
  code: Code,
  obfuscationType: Type.Optional(ObfuscationTypeSchema),
  visible: Type.Optional(Type.Boolean()),
  enabled: Type.Optional(Enabled),
  disabledMessage: Type.Optional(DisabledMessage),
  ffa: Type.Optional(Ffa),
  silent: Type.Optional(Silent),
  heartbeat: Type.Optional(Heartbeat),
  executors: Type.Optional(ExecutorRuleSchema),
});

export const UpdateBody = Strict(
  {
    name: Type.Optional(ScriptName),
    code: Type.Optional(Code),
    obfuscationType: Type.Optional(ObfuscationTypeSchema),
    visible: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Enabled),
    disabledMessage: Type.Optional(DisabledMessage),
    ffa: Type.Optional(Ffa),
    silent: Type.Optional(Silent),
    heartbeat: Type.Optional(Heartbeat),
    executors: Type.Optional(ExecutorRuleSchema),
  },
  {
    minProperties: 1,
    errorMessage:
      'must name at least one of name, code, obfuscationType, visible, enabled, disabledMessage, ffa, silent, heartbeat, executors',
  },
);

export const ScriptParams = Strict({ idOrSlug: Type.String({ minLength: 1, maxLength: 64 }) });
export const ListQuery = Strict(PageQuery);

export const Script = Type.Object({
  id: Type.String(),
  name: Type.String(),
  obfuscationType: Type.String(),
  visible: Type.Boolean(),
  /** Kill switch (contract §13.3): present (false) only while the script is switched off; absent means on. */
  enabled: Type.Optional(Type.Boolean()),
  /** What a fetch raises while the script is off; absent means the default sentence. */
  disabledMessage: Type.Optional(Type.String()),
  /** Contract §16.3, §23: free for all / silent, always present. */
  ffa: Type.Boolean(),
  silent: Type.Boolean(),
  /** Every run opens a live session and heartbeats (contract §18). */
  heartbeat: Type.Boolean(),
  /** Which executors it runs on (contract §29): only those allowed, all but those denied, or null for any. */
  executors: ExecutorRuleSchema,
  size: Type.Integer(),
  status: Type.Union([Type.Literal('ready'), Type.Literal('processing'), Type.Literal('failed')]),
  /** Only when status is failed: why the obfuscator refused or failed. */
  failureReason: Type.Optional(Type.String()),
  createdAt: Time,
  updatedAt: Time,
  loadstring: Type.String(),
});

export const Loadstring = Type.Object({ loadstring: Type.String() });
export const VisibleScripts = Type.Object({
  scripts: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), loadstring: Type.String() })),
});

export const VersionParams = Strict({
  idOrSlug: Type.String({ minLength: 1, maxLength: 64 }),
  version: Type.String({ pattern: '^[0-9]{1,9}$', errorMessage: 'must be a version number such as 3' }),
});
export const Versions = Type.Object({
  items: Type.Array(
    Type.Object({
      version: Type.Integer(),
      /** Hex SHA-256 of the version's code as stored. */
      sha256: Type.String(),
      size: Type.Integer(),
      createdAt: Time,
      current: Type.Boolean(),
    }),
  ),
});
