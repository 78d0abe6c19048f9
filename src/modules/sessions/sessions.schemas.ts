import { Type } from 'typebox';
import { ErrorEnvelope, LicenseKey, NullableString, Paging, Strict, Time } from '../../schemas.ts';
import { ClientHwid, ClientKey } from '../validation/validation.schemas.ts';
import { ExecutorField } from '../../lib/executor.ts';

const NO_CONTROLS = '^[^\\x00-\\x1F\\x7F]*$';
const Ref = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: NO_CONTROLS,
  errorMessage: 'must be a service id or identifier of 1 to 64 characters',
});
// Any text is a session id to look up: one that does not exist is the 410 TIMED_OUT of contract §18, not a 400.
const SessionId = Type.String({ minLength: 1, maxLength: 128, pattern: NO_CONTROLS, errorMessage: 'must be a session id' });
const ScriptId = Type.String({ minLength: 1, maxLength: 64, pattern: NO_CONTROLS, errorMessage: 'must be a script id' });

export const ServiceParams = Type.Object({ service: Ref });
export const SessionParams = Type.Object({ service: Ref, sessionId: SessionId });

// Executors differ, so client routes accept and ignore unknown fields (contract §1).
export const OpenInput = Type.Object(
  {
    key: Type.Optional(ClientKey),
    hwid: Type.Optional(ClientHwid),
    scriptId: Type.Optional(ScriptId),
    // The loader's way to ask "does this run need a session?" without knowing the key's limit: true, 1 or yes.
    ifNeeded: Type.Optional(Type.Union([Type.Boolean(), Type.String({ maxLength: 8 })])),
    /** The executor the run reported (contract §29). */
    executor: Type.Optional(ExecutorField),
  },
  { additionalProperties: true },
);

export const Opened = Type.Object({ sessionId: Type.String(), heartbeatSeconds: Type.Integer(), expiresAt: Time });
/** ifNeeded, when neither the script's heartbeat nor the key's maxSessions asks for a session: nothing opened. */
export const NotNeeded = Type.Object({ needed: Type.Literal(false) });
export const Alive = Type.Object({ alive: Type.Literal(true), heartbeatSeconds: Type.Integer(), expiresAt: Time });
export const Closed = Type.Object({ ended: Type.Boolean() });

/** The error envelope with `reason` (KEY_REFUSED: the validation code; SESSION_ENDED: why) and `maxSessions` (SESSION_LIMIT). */
export const SessionError = Type.Object({
  ...ErrorEnvelope.properties,
  reason: Type.Optional(Type.String()),
  maxSessions: Type.Optional(Type.Integer()),
  banReason: Type.Optional(NullableString),
  banEndsAt: Type.Optional(Type.Union([Time, Type.Null()])),
});

export const ListQuery = Strict({ ...Paging, key: Type.Optional(LicenseKey), scriptId: Type.Optional(ScriptId) });
export const ListedSession = Type.Object({
  sessionId: Type.String(),
  key: NullableString,
  hwid: Type.String(),
  scriptId: NullableString,
  startedAt: Time,
  lastSeenAt: Time,
});
export const KillBody = Strict({ key: Type.Optional(LicenseKey), sessionId: Type.Optional(SessionId) });
export const Killed = Type.Object({ ended: Type.Integer() });
