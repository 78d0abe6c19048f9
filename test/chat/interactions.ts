import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { App } from '../../src/app.ts';

/** A chat application's key pair, as the platform holds it: the public half goes into the settings. */
export class ChatSigner {
  readonly privateKey: KeyObject;
  readonly publicKeyHex: string;

  constructor() {
    const pair = generateKeyPairSync('ed25519');
    this.privateKey = pair.privateKey;
    const jwk = pair.publicKey.export({ format: 'jwk' });
    this.publicKeyHex = Buffer.from(jwk.x!, 'base64url').toString('hex');
  }

  signature(timestamp: string, body: string): string {
    return sign(null, Buffer.from(timestamp + body), this.privateKey).toString('hex');
  }
}

export interface SendOptions {
  signer?: ChatSigner;
  /** Epoch ms the platform claims to have signed at (seconds are sent). */
  at: number;
  signatureOverride?: string;
  timestampOverride?: string;
  omitSignature?: boolean;
  omitTimestamp?: boolean;
  /** Signs one body and sends another. */
  sentBody?: string;
}

export async function sendInteraction(app: App, service: string, payload: unknown, options: SendOptions) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const timestamp = options.timestampOverride ?? String(Math.floor(options.at / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!options.omitTimestamp) headers['x-signature-timestamp'] = timestamp;
  if (!options.omitSignature) {
    headers['x-signature-ed25519'] = options.signatureOverride ?? options.signer!.signature(timestamp, body);
  }
  const response = await app.inject({
    method: 'POST',
    url: `/api/v1/chat/interactions/${service}`,
    headers,
    payload: options.sentBody ?? body,
  });
  let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = response.json();
  } catch {
    json = response.body;
  }
  return { status: response.statusCode, body: json };
}

let sequence = 0;
/** A fresh interaction id, as Discord gives each interaction (a retry repeats its id: pass it explicitly). */
export const interactionId = () => String(1200000000000000000n + BigInt(++sequence) * 1000n + BigInt(process.pid % 1000));

export const command = (
  guildId: string | undefined,
  userId: string,
  name: string,
  options?: Array<{ name: string; type: number; value: string }>,
) => ({
  id: interactionId(),
  application_id: '1100000000000000002',
  type: 2,
  token: 'interaction-token',
  version: 1,
  ...(guildId
    ? { guild_id: guildId, member: { user: { id: userId, username: 'player' }, roles: [] } }
    : { user: { id: userId, username: 'player' } }),
  data: { id: '1100000000000000003', name, type: 1, ...(options ? { options } : {}) },
});
