import { Type } from 'typebox';
import { Account, ErrorEnvelope, Strict } from '../../schemas.ts';

/** The base64 payload the ALTCHA widget produces for a solved challenge. */
export const Captcha = Type.String({ minLength: 1, maxLength: 4096, errorMessage: 'must be the solved ALTCHA payload (a base64 string)' });
const Totp = Type.String({ pattern: '^[0-9]{6}$', errorMessage: 'must be a 6-digit code' });

export const CaptchaChallenge = Type.Object({
  algorithm: Type.String(),
  challenge: Type.String(),
  maxnumber: Type.Optional(Type.Integer()),
  salt: Type.String(),
  signature: Type.String(),
});

export const RegisterBody = Strict({
  username: Type.String({ pattern: '^[A-Za-z0-9_.-]{3,32}$', errorMessage: 'must be 3 to 32 characters of letters, digits, _ . -' }),
  password: Type.String({ minLength: 10, maxLength: 1024, errorMessage: 'must be 10 to 1024 characters' }),
  captcha: Captcha,
});

export const LoginBody = Strict({
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  totp: Type.Optional(Totp),
  apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  /** The second step of a two-factor sign-in: the token of TOTP_REQUIRED, with `username` and `totp` (no password, no captcha). */
  stepToken: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  captcha: Type.Optional(Captcha),
});

/** The login's error envelope carries `stepToken` when the password was right and the code is due. */
export const LoginError = Type.Object({
  ...ErrorEnvelope.properties,
  stepToken: Type.Optional(Type.String()),
  // RATE_LIMITED: 'account-locked' for the per-username lockout; absent when the address sent too many requests.
  reason: Type.Optional(Type.String()),
});

export const SessionView = Type.Object({ account: Account, csrfToken: Type.String() });
export const LoginResult = Type.Object({ account: Account });
export const LoggedOut = Type.Object({ loggedOut: Type.Literal(true) });

export const TotpBody = Strict({ totp: Totp });
export const TwoFactorSetup = Type.Object({ secret: Type.String(), otpauthUri: Type.String() });
export const TwoFactorState = Type.Object({ twoFactorEnabled: Type.Boolean() });
