import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const PREFIX = 'enc:v1';
const IV_BYTES = 12;

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/**
 * Parses `FIELD_ENCRYPTION_KEY`: `<id>:<base64 32-byte key>`, comma-separated; the first is used to
 * encrypt, all of them to decrypt, so a key can be rotated in (new key first) and the old one kept
 * until `npm run reencrypt` has moved every value to the new one.
 */
export function parseEncryptionKeys(value: string): EncryptionKey[] {
  const keys = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/=_-]+)$/.exec(entry);
      if (!match) throw new Error('FIELD_ENCRYPTION_KEY entries must look like <id>:<base64 key>');
      const key = Buffer.from(match[2], 'base64');
      if (key.length !== 32) throw new Error(`FIELD_ENCRYPTION_KEY key "${match[1]}" must be 32 bytes (base64 of 32 random bytes)`);
      return { id: match[1], key };
    });
  if (keys.length === 0) throw new Error('FIELD_ENCRYPTION_KEY holds no key');
  if (new Set(keys.map((key) => key.id)).size !== keys.length) throw new Error('FIELD_ENCRYPTION_KEY repeats a key id');
  return keys;
}

/**
 * AES-256-GCM for single fields at rest. A stored value is `enc:v1:<key id>:<iv>:<tag>:<ciphertext>`
 * (base64url parts): the key id travels with the value, so keys can rotate. The field's name is
 * bound in as associated data, so a value copied into another field does not decrypt.
 */
export class FieldEncryption {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: EncryptionKey[]) {
    if (keys.length === 0) throw new Error('FieldEncryption needs at least one key');
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
  }

  get currentKeyId(): string {
    return this.keys[0].id;
  }

  encrypt(plaintext: string, field: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv);
    cipher.setAAD(Buffer.from(field, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [PREFIX, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
  }

  decrypt(stored: string, field: string): string {
    const parts = stored.split(':');
    if (parts.length !== 6 || `${parts[0]}:${parts[1]}` !== PREFIX) throw new Error(`${field} is not an encrypted value`);
    const [, , id, iv, tag, ciphertext] = parts;
    const key = this.byId.get(id);
    if (!key) throw new Error(`${field} is encrypted with key "${id}", which FIELD_ENCRYPTION_KEY no longer holds`);
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(field, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  static isEncrypted(stored: string): boolean {
    return stored.startsWith(`${PREFIX}:`);
  }

  /** The id of the key a stored value was encrypted with, or null for a plain value. */
  static keyIdOf(stored: string): string | null {
    return FieldEncryption.isEncrypted(stored) ? stored.split(':')[2] : null;
  }
}
