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
/** What a signed validation answer adds to the verdict. */
export const SignatureFields = {
  serverTime: Type.Optional(Type.Integer({ description: 'Epoch milliseconds at signing; only with nonce.' })),
  signature: Type.Optional(Type.String({ description: 'Base64 Ed25519 signature (contract §13.1); only with nonce.' })),
};
