import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** API keys are looked up by this digest; the plaintext never reaches the database in clear. */
export const digest = (value: string): string => createHash('sha256').update(value).digest('base64url');

export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** AES-256-GCM under a key derived from the server secret; output is iv.tag.ciphertext, base64url. */
export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string, purpose = 'keyward:seal:v1') {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'keyward', purpose, 32));
  }

  seal(plaintext: string | Buffer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  openBuffer(sealed: string): Buffer {
    const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !tag || !body) throw new Error('sealed value is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  }

  open(sealed: string): string {
    return this.openBuffer(sealed).toString('utf8');
  }
}
