import { Type } from 'typebox';

export const SigningKey = Type.Object({ algorithm: Type.Literal('Ed25519'), publicKey: Type.String() });
export const SigningKeyParams = Type.Object({
  service: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'must be a service id or identifier of 1 to 64 characters' }),
});

/** A client's nonce for a signed answer (contract §13.1); anything else is a 400 naming `nonce`. */
export const Nonce = Type.String({
  pattern: '^[A-Za-z0-9]{16,64}$',
  errorMessage: 'must be 16 to 64 letters (A-Z, a-z) and digits, and nothing else',
});
/**
 * Which signed text a client asks for (contract §22): `2` for keyward-validate-v2 (percent-encoded fields, isPremium
 * signed, the HWID as sent), anything else or nothing for v1 as before. Written in a query it is the text "2".
 */
export const SignatureVersion = Type.Union([Type.Literal('1'), Type.Literal('2'), Type.Literal(1), Type.Literal(2)], {
  errorMessage: 'must be 1 or 2 (the version of the signed text)',
});
export const isV2 = (sig: unknown) => sig === 2 || sig === '2';
/** What a signed validation answer adds to the verdict. */
export const SignatureFields = {
  serverTime: Type.Optional(Type.Integer({ description: 'Epoch milliseconds at signing; only with nonce.' })),
  signature: Type.Optional(Type.String({ description: 'Base64 Ed25519 signature (contract §13.1); only with nonce.' })),
};
