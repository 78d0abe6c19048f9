import { createPublicKey, verify, type KeyObject } from 'node:crypto';

const HEX_KEY = /^[0-9a-f]{64}$/i;
const HEX_SIGNATURE = /^[0-9a-f]{128}$/i;

/** A raw 32-byte Ed25519 public key given as hex (the form the chat platform shows) as a node KeyObject. */
export function ed25519PublicKey(hex: string): KeyObject | null {
  if (!HEX_KEY.test(hex)) return null;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** True only for a well-formed hex signature of `message` under the hex public key. */
export function verifyEd25519(publicKeyHex: string, message: Buffer, signatureHex: string): boolean {
  if (!HEX_SIGNATURE.test(signatureHex)) return false;
  const key = ed25519PublicKey(publicKeyHex);
  if (!key) return false;
  try {
    return verify(null, message, key, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}
