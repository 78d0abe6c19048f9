import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
import type { Sealer } from '../../lib/secrets.ts';
import { recordServiceAudit } from '../audit/audit.service.ts';
import type { Actor } from '../audit/actor.ts';
import { findSigningKey, insertSigningKeyIfAbsent, replaceSigningKey, type SigningKeyRow } from './signing.repository.ts';

/** Contract §13.1: the prefix that makes a Keyward validation signature mean nothing anywhere else. */
export const SIGNED_TEXT_VERSION = 'keyward-validate-v1';
const TOPIC = 'signing-key';

export interface PublicSigningKey {
  algorithm: 'Ed25519';
  /** Base64 of the 32 raw public-key bytes. */
  publicKey: string;
}

interface LoadedKey {
  publicKey: string;
  privateKey: KeyObject;
}

/** A fresh key pair as it is stored: the raw public key in base64, the PKCS#8 private key sealed. */
function newKeyPair(sealer: Sealer, serviceId: string, now: number): SigningKeyRow {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  return {
    serviceId,
    publicKey: raw.toString('base64'),
    privateKeySealed: sealer.seal(privateKey.export({ format: 'der', type: 'pkcs8' })),
    createdAt: now,
  };
}

/**
 * Each instance's opened private keys, by service id (AppContext.signingKeys): opening one costs an AES-GCM
 * open and a key parse, too much for every signed answer. A rotation on any instance drops the copy everywhere
 * through the invalidation bus; a load that raced with it is not kept (the epoch moved on meanwhile).
 */
export class SigningKeyCache {
  private readonly entries = new Map<string, LoadedKey>();
  private readonly loading = new Map<string, Promise<LoadedKey>>();
  private epoch = 0;

  constructor(bus: InvalidationBus) {
    bus.subscribe(TOPIC, (serviceId) => this.forget(serviceId));
  }

  forget(serviceId: string): void {
    this.epoch++;
    if (serviceId === '*') this.entries.clear();
    else this.entries.delete(serviceId);
    this.loading.clear();
  }

  get(ctx: AppContext, serviceId: string): Promise<LoadedKey> {
    const hit = this.entries.get(serviceId);
    if (hit) return Promise.resolve(hit);
    let pending = this.loading.get(serviceId);
    if (!pending) {
      const epoch = this.epoch;
      pending = loadKey(ctx, serviceId).then(
        (loaded) => {
          if (this.epoch === epoch) this.entries.set(serviceId, loaded);
          if (this.loading.get(serviceId) === pending) this.loading.delete(serviceId);
          return loaded;
        },
        (err: unknown) => {
          if (this.loading.get(serviceId) === pending) this.loading.delete(serviceId);
          throw err;
        },
      );
      this.loading.set(serviceId, pending);
    }
    return pending;
  }
}

/** The service's key pair, made on first use: two instances asking at once store one pair, and both read it back. */
async function storedKey(ctx: AppContext, serviceId: string): Promise<SigningKeyRow> {
  const found = await findSigningKey(ctx.db, serviceId);
  if (found) return found;
  await insertSigningKeyIfAbsent(ctx.db, newKeyPair(ctx.sealer, serviceId, ctx.clock()));
  const stored = await findSigningKey(ctx.db, serviceId);
  if (!stored) throw new Error('the signing key just stored could not be read back');
  return stored;
}

async function loadKey(ctx: AppContext, serviceId: string): Promise<LoadedKey> {
  const row = await storedKey(ctx, serviceId);
  const privateKey = createPrivateKey({ key: ctx.sealer.openBuffer(row.privateKeySealed), format: 'der', type: 'pkcs8' });
  return { publicKey: row.publicKey, privateKey };
}

export async function publicSigningKey(ctx: AppContext, serviceId: string): Promise<PublicSigningKey> {
  return { algorithm: 'Ed25519', publicKey: (await ctx.signingKeys.get(ctx, serviceId)).publicKey };
}

/** Replaces the service's key pair at once on every instance; answers signed from now on verify only under the new key. */
export async function rotateSigningKey(
  ctx: AppContext,
  service: { id: string; accountId: string },
  actor: Actor,
): Promise<PublicSigningKey> {
  const row = newKeyPair(ctx.sealer, service.id, ctx.clock());
  await ctx.db.transaction().execute(async (trx) => {
    await replaceSigningKey(trx, row);
    await recordServiceAudit(trx, actor, service, 'signingKey.rotate', null, { publicKey: row.publicKey }, row.createdAt);
  });
  ctx.signingKeys.forget(service.id);
  await ctx.bus.publish(TOPIC, service.id);
  return { algorithm: 'Ed25519', publicKey: row.publicKey };
}

/** What one signed validation answer covers (contract §13.1). */
export interface SignedFields {
  serviceId: string;
  key: string;
  hwid: string;
  nonce: string;
  code: string;
  valid: boolean;
  expiresAt: string | null;
  serverTime: number;
}

/** The exact UTF-8 text that is signed; clients rebuild it from what they sent and what came back. */
export const signedText = (f: SignedFields): string =>
  [SIGNED_TEXT_VERSION, f.serviceId, f.key, f.hwid, f.nonce, f.code, f.valid ? 'true' : 'false', f.expiresAt ?? '', f.serverTime].join('|');

/** Contract §22: the v2 prefix. */
export const SIGNED_TEXT_V2 = 'keyward-validate-v2';

/**
 * RFC 3986 percent-encoding of the UTF-8 bytes: the unreserved characters (A-Z a-z 0-9 - . _ ~) stay, every other
 * byte is `%XX` (upper-case hex). No field can then hold the `|` that separates them.
 */
export function percentEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The v2 text (contract §22): isPremium is covered, every field percent-encoded, and `hwid` is the HWID as the query
 * or body sent it (empty when it came only from a fingerprint header, which a script cannot read to check).
 */
export const signedTextV2 = (f: SignedFields & { isPremium: boolean }): string =>
  [
    SIGNED_TEXT_V2,
    f.serviceId,
    f.key,
    f.hwid,
    f.nonce,
    f.code,
    f.valid ? 'true' : 'false',
    f.isPremium ? 'true' : 'false',
    f.expiresAt ?? '',
    String(f.serverTime),
  ]
    .map(percentEncode)
    .join('|');

/**
 * `serverTime` and the base64 Ed25519 `signature` to add to a validation answer the client asked to be signed.
 * `hwid` is the HWID validation used (v1 signs it); `sentHwid` the one the query or body carried (v2 signs that).
 */
export async function signVerdict(
  ctx: AppContext,
  serviceId: string,
  request: { key?: string; hwid?: string; sentHwid?: string; nonce: string; version?: 1 | 2 },
  verdict: { code: string; valid: boolean; isPremium?: boolean; expiresAt: string | null },
): Promise<{ serverTime: number; signature: string }> {
  const { privateKey } = await ctx.signingKeys.get(ctx, serviceId);
  const serverTime = ctx.clock();
  const fields = {
    serviceId,
    key: request.key ?? '',
    hwid: request.hwid ?? '',
    nonce: request.nonce,
    code: verdict.code,
    valid: verdict.valid,
    expiresAt: verdict.expiresAt,
    serverTime,
  };
  const text =
    request.version === 2
      ? signedTextV2({ ...fields, hwid: request.sentHwid ?? '', isPremium: verdict.isPremium === true })
      : signedText(fields);
  return { serverTime, signature: sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64') };
}
