import { randomBytes } from 'node:crypto';
import { FieldEncryption, parseEncryptionKeys } from './field-encryption';

const keyText = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

describe('FieldEncryption', () => {
  const first = keyText('k1');
  const second = keyText('k2');

  it('round-trips a value, and never stores the plaintext', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    const stored = crypto.encrypt('123-45-6789', 'SocialNumber');
    expect(stored).toMatch(/^enc:v1:k1:/);
    expect(stored).not.toContain('123-45-6789');
    expect(crypto.decrypt(stored, 'SocialNumber')).toBe('123-45-6789');
  });

  it('gives two encryptions of one value different texts (random IV), so equal values do not show', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    expect(crypto.encrypt('same', 'f')).not.toBe(crypto.encrypt('same', 'f'));
  });

  it('refuses a tampered value and a value moved to another field', () => {
    const crypto = new FieldEncryption(parseEncryptionKeys(first));
    const stored = crypto.encrypt('secret', 'SocialNumber');
    const parts = stored.split(':');
    parts[5] = Buffer.from('sekret').toString('base64url');
    expect(() => crypto.decrypt(parts.join(':'), 'SocialNumber')).toThrow();
    expect(() => crypto.decrypt(stored, 'email')).toThrow();
  });

  it('rotates: the first key encrypts, every listed key decrypts, a dropped key is named', () => {
    const old = new FieldEncryption(parseEncryptionKeys(first));
    const stored = old.encrypt('v', 'f');
    const rotated = new FieldEncryption(parseEncryptionKeys(`${second},${first}`));
    expect(rotated.decrypt(stored, 'f')).toBe('v');
    expect(FieldEncryption.keyIdOf(rotated.encrypt('v', 'f'))).toBe('k2');
    const dropped = new FieldEncryption(parseEncryptionKeys(second));
    expect(() => dropped.decrypt(stored, 'f')).toThrow(/key "k1"/);
  });

  it.each([
    ['', /holds no key/],
    ['nokey', /<id>:<base64 key>/],
    [`k1:${randomBytes(16).toString('base64')}`, /32 bytes/],
    [`${first},${first}`, /repeats/],
  ])('refuses the setting %p', (value, message) => {
    expect(() => parseEncryptionKeys(value)).toThrow(message);
  });
});
