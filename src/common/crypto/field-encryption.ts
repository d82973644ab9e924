import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
/** The full GCM tag, always: a shorter tag is easier to forge, so one is refused, never checked as given. */
const TAG_BYTES = 16;

/** The forms a stored value can have, told apart by the version after `enc:`. */
const FORM_FIELD_ONLY = 'v1';
const FORM_RECORD_BOUND = 'v2';
const CURRENT_FORM = FORM_RECORD_BOUND;

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/**
 * Where a value is stored: its record's id (as a string, in one canonical spelling) and the field's
 * name. Both are bound into the ciphertext, so a value copied into another record or another field
 * does not decrypt.
 */
export interface FieldBinding {
  record: string;
  field: string;
}

export interface FieldEncryptionOptions {
  /**
   * Whether `v1` values (the field's name bound in, not the record's id) are still read: a `v1`
   * value copied into another record of the same field decrypts there. Default true.
   */
  acceptFieldOnly?: boolean;
}

/** A stored value that cannot be read: malformed, under a key no longer held, or not this record's field. */
export class FieldDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldDecryptionError';
  }
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
      if (key.length !== 32)
        throw new Error(`FIELD_ENCRYPTION_KEY key "${match[1]}" must be 32 bytes (base64 of 32 random bytes)`);
      return { id: match[1], key };
    });
  if (keys.length === 0) throw new Error('FIELD_ENCRYPTION_KEY holds no key');
  if (new Set(keys.map((key) => key.id)).size !== keys.length) throw new Error('FIELD_ENCRYPTION_KEY repeats a key id');
  return keys;
}

/**
 * AES-256-GCM for single fields at rest. A stored value is `enc:<form>:<key id>:<iv>:<tag>:<ciphertext>`
 * (base64url parts): the key id travels with the value, so keys can rotate, and the form says what
 * is bound in as associated data:
 * - `v2` (every new value): the record's id and the field's name, so a value copied into another
 *   record, or another field, does not decrypt;
 * - `v1` (written by older builds): the field's name only. Read unless `acceptFieldOnly` is false
 *   (`ACCEPT_LEGACY_CIPHERTEXT`); `npm run reencrypt` rewrites such values in the `v2` form.
 * The tag is always the full 16 bytes.
 */
export class FieldEncryption {
  private readonly byId: Map<string, Buffer>;
  private fieldOnlyAccepted: boolean;

  constructor(
    private readonly keys: EncryptionKey[],
    options: FieldEncryptionOptions = {},
  ) {
    if (keys.length === 0) throw new Error('FieldEncryption needs at least one key');
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
    this.fieldOnlyAccepted = options.acceptFieldOnly ?? true;
  }

  get acceptFieldOnly(): boolean {
    return this.fieldOnlyAccepted;
  }

  /** From now on `v1` values are refused (decided at start, once the database says whether `reencrypt` has run). */
  refuseFieldOnly(): void {
    this.fieldOnlyAccepted = false;
  }

  get currentKeyId(): string {
    return this.keys[0].id;
  }

  encrypt(plaintext: string, binding: FieldBinding): string {
    // An unbound value could be copied anywhere: refuse to make one.
    if (!binding.record || !binding.field)
      throw new Error('A field is encrypted for one record and one field: both must be named');
    const { id, key } = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(CURRENT_FORM, binding));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      'enc',
      CURRENT_FORM,
      id,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ciphertext.toString('base64url'),
    ].join(':');
  }

  /**
   * The plaintext of a stored value; a `FieldDecryptionError` when it cannot be read as this
   * record's field, or is a `v1` value and those are refused (`options` overrides that, for
   * `reencrypt`, which rewrites them).
   */
  decrypt(stored: string, binding: FieldBinding, options: FieldEncryptionOptions = {}): string {
    const { field } = binding;
    const parts = stored.split(':');
    if (parts.length !== 6 || parts[0] !== 'enc' || (parts[1] !== FORM_FIELD_ONLY && parts[1] !== FORM_RECORD_BOUND)) {
      throw new FieldDecryptionError(`${field} is not an encrypted value`);
    }
    const [, form, id, ivText, tagText, ciphertext] = parts;
    if (form === FORM_FIELD_ONLY && !(options.acceptFieldOnly ?? this.fieldOnlyAccepted)) {
      throw new FieldDecryptionError(
        `${field} is in the older form bound to the field only (enc:v1), refused: ACCEPT_LEGACY_CIPHERTEXT is false or npm run reencrypt has run`,
      );
    }
    const key = this.byId.get(id);
    if (!key)
      throw new FieldDecryptionError(
        `${field} is encrypted with key "${id}", which FIELD_ENCRYPTION_KEY no longer holds`,
      );
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new FieldDecryptionError(`${field} has a malformed IV or a tag shorter than ${TAG_BYTES} bytes`);
    try {
      const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(associatedData(form, binding));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new FieldDecryptionError(`${field} does not decrypt: altered, or not this record's value`);
    }
  }

  /** Whether a stored value is in the current form under the current key: nothing for `reencrypt` to do. */
  isCurrent(stored: string): boolean {
    return FieldEncryption.formOf(stored) === CURRENT_FORM && FieldEncryption.keyIdOf(stored) === this.currentKeyId;
  }

  static isEncrypted(stored: string): boolean {
    return FieldEncryption.formOf(stored) !== null;
  }

  /** The form of a stored value (`v1`, `v2`), or null for a plain value. */
  static formOf(stored: string): string | null {
    const [prefix, form] = stored.split(':', 2);
    return prefix === 'enc' && (form === FORM_FIELD_ONLY || form === FORM_RECORD_BOUND) ? form : null;
  }

  /** The id of the key a stored value was encrypted with, or null for a plain value. */
  static keyIdOf(stored: string): string | null {
    return FieldEncryption.isEncrypted(stored) ? stored.split(':')[2] : null;
  }
}

/** What each form binds in: v1 the field's name, v2 the record's id and the field's name (NUL-separated, as neither holds one). */
function associatedData(form: string, { record, field }: FieldBinding): Buffer {
  return Buffer.from(form === FORM_FIELD_ONLY ? field : `${record}\u0000${field}`, 'utf8');
}
