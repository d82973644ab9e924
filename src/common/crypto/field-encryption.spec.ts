import { createCipheriv, randomBytes } from 'node:crypto';
import { FieldDecryptionError, FieldEncryption, parseEncryptionKeys, type FieldBinding } from './field-encryption';

const keyText = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const ssn = (record: string): FieldBinding => ({ record, field: 'SocialNumber' });
const RECORD = '6650c0ffee0000000000f001';
const OTHER_RECORD = '6650c0ffee0000000000f002';

/** A value as older builds stored it: `enc:v1`, only the field's name bound in. */
function oldForm(keyText: string, plaintext: string, field: string, tagBytes = 16): string {
  const [{ id, key }] = parseEncryptionKeys(keyText);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(field, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'enc',
    'v1',
    id,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join(':');
}

/** The stored value with its tag cut to its first `bytes` bytes. */
function withTagCut(stored: string, bytes: number): string {
  const parts = stored.split(':');
  parts[4] = Buffer.from(parts[4], 'base64url').subarray(0, bytes).toString('base64url');
  return parts.join(':');
}

describe('FieldEncryption', () => {
  const first = keyText('k1');
  const second = keyText('k2');

  it('round-trips a value in the current form, and never stores the plaintext', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    const stored = crypto.encrypt('123-45-6789', ssn(RECORD));
    expect(stored).toMatch(/^enc:v2:k1:/);
    expect(stored).not.toContain('123-45-6789');
    expect(crypto.decrypt(stored, ssn(RECORD))).toBe('123-45-6789');
    expect(crypto.isCurrent(stored)).toBe(true);
  });

  it('gives two encryptions of one value different texts (random IV), so equal values do not show', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    expect(crypto.encrypt('same', ssn(RECORD))).not.toBe(crypto.encrypt('same', ssn(RECORD)));
  });

  it('refuses a tampered value, a value moved to another field and one copied to another record', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    const stored = crypto.encrypt('secret', ssn(RECORD));
    const parts = stored.split(':');
    parts[5] = Buffer.from('sekret').toString('base64url');
    expect(() => crypto.decrypt(parts.join(':'), ssn(RECORD))).toThrow(FieldDecryptionError);
    expect(() => crypto.decrypt(stored, { record: RECORD, field: 'email' })).toThrow(FieldDecryptionError);
    expect(() => crypto.decrypt(stored, ssn(OTHER_RECORD))).toThrow(FieldDecryptionError);
  });

  it('refuses a tag shorter than 16 bytes, even one that authenticates as far as it goes', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    const stored = crypto.encrypt('secret', ssn(RECORD));
    for (const bytes of [15, 12, 8, 4])
      expect(() => crypto.decrypt(withTagCut(stored, bytes), ssn(RECORD))).toThrow(/shorter than 16 bytes/);
    // A value written with a genuinely short tag (valid for GCM as such) is refused all the same.
    const shortTagged = oldForm(first, 'secret', 'SocialNumber', 12);
    expect(() => crypto.decrypt(shortTagged, ssn(RECORD))).toThrow(/shorter than 16 bytes/);
  });

  it('still reads the older form (the field bound in, not the record), and tells it is not current', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    const stored = oldForm(first, '078-05-1120', 'SocialNumber');
    expect(FieldEncryption.formOf(stored)).toBe('v1');
    expect(crypto.decrypt(stored, ssn(RECORD))).toBe('078-05-1120');
    expect(() => crypto.decrypt(stored, { record: RECORD, field: 'email' })).toThrow(FieldDecryptionError);
    expect(crypto.isCurrent(stored)).toBe(false);
  });

  it('refuses to encrypt a value bound to no record', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    expect(() => crypto.encrypt('v', ssn(''))).toThrow(/one record/);
  });

  it('rotates: the first key encrypts, every listed key decrypts, a dropped key is named', () => {
    const old = new FieldEncryption(parseEncryptionKeys(first));
    const stored = old.encrypt('v', ssn(RECORD));
    const rotated = new FieldEncryption(parseEncryptionKeys(`${second},${first}`));
    expect(rotated.decrypt(stored, ssn(RECORD))).toBe('v');
    expect(rotated.isCurrent(stored)).toBe(false);
    expect(FieldEncryption.keyIdOf(rotated.encrypt('v', ssn(RECORD)))).toBe('k2');
    const dropped = new FieldEncryption(parseEncryptionKeys(second));
    expect(() => dropped.decrypt(stored, ssn(RECORD))).toThrow(/key "k1"/);
  });

  it('tells plain values from encrypted ones', () => {
    expect(FieldEncryption.formOf('078-05-1120')).toBeNull();
    expect(FieldEncryption.keyIdOf('078-05-1120')).toBeNull();
    expect(FieldEncryption.isEncrypted('enc:v9:k1:a:b:c')).toBe(false);
  });

  it.each([
    ['', /holds no key/],
    ['nokey', /<id>:<base64 key>/],
    [`k1:${randomBytes(16).toString('base64')}`, /32 bytes/],
    [`${first},${first}`, /repeats/],
  ])('refuses the setting %p', (value, message) => {
    expect(() => parseEncryptionKeys(value)).toThrow(message);
  });

  it('refuses the older form when told to (ACCEPT_LEGACY_CIPHERTEXT=false), unless a call asks for it (reencrypt)', () => {
    const strict = new FieldEncryption(parseEncryptionKeys(first), { acceptFieldOnly: false });
    const old = oldForm(first, '078-05-1120', 'SocialNumber');
    expect(() => strict.decrypt(old, ssn(RECORD))).toThrow(FieldDecryptionError);
    expect(() => strict.decrypt(old, ssn(RECORD))).toThrow(/enc:v1\), refused/);
    expect(strict.decrypt(old, ssn(RECORD), { acceptFieldOnly: true })).toBe('078-05-1120');
    expect(strict.decrypt(strict.encrypt('078-05-1120', ssn(RECORD)), ssn(RECORD))).toBe('078-05-1120');
    expect(new FieldEncryption(parseEncryptionKeys(first)).decrypt(old, ssn(RECORD))).toBe('078-05-1120');
  });
});
