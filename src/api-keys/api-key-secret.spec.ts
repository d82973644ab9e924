import { createHash } from 'node:crypto';
import { API_KEY_START_LENGTH, generateApiKey, hasApiKeyForm, hashApiKey, kindOfKey } from './api-key-secret';

describe('API key secrets', () => {
  it('are sk_test_ and 32 random bytes in base64url, stored as their SHA-256 with a short start', () => {
    const first = generateApiKey();
    const second = generateApiKey();
    expect(first.key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first.key.slice('sk_test_'.length), 'base64url')).toHaveLength(32);
    expect(first.key).not.toBe(second.key);
    expect(first.hash).toBe(createHash('sha256').update(first.key).digest('hex'));
    expect(first.hash).not.toContain(first.key.slice(8));
    expect(first.start).toBe(first.key.slice(0, API_KEY_START_LENGTH));
    expect(first.start).toHaveLength(12);
  });

  it('are pk_test_ for a publishable key, of the same form', () => {
    const { key, start } = generateApiKey('publishable');
    expect(key).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);
    expect(start).toBe(key.slice(0, 12));
    expect(hasApiKeyForm(key)).toBe(true);
    expect(kindOfKey(key)).toBe('publishable');
    expect(kindOfKey(generateApiKey().key)).toBe('secret');
    expect(hasApiKeyForm(key.replace('pk_test_', 'pk_live_'))).toBe(false);
  });

  it('recognise only the form this service issues', () => {
    const { key } = generateApiKey();
    expect(hasApiKeyForm(key)).toBe(true);
    expect(hasApiKeyForm(key.replace('sk_test_', 'sk_live_'))).toBe(false);
    expect(hasApiKeyForm(`${key}x`)).toBe(false);
    expect(hasApiKeyForm(key.slice(0, -1))).toBe(false);
    expect(hasApiKeyForm('sk_test_' + '!'.repeat(43))).toBe(false);
  });

  it('hash deterministically', () => {
    expect(hashApiKey('sk_test_abc')).toBe(hashApiKey('sk_test_abc'));
    expect(hashApiKey('sk_test_abc')).toMatch(/^[0-9a-f]{64}$/);
  });
});
