import { BadRequestException } from '@nestjs/common';
import { callerId, canonicalJson, idempotencyScope, readIdempotencyKey, requestFingerprint } from './request-fingerprint';

describe('readIdempotencyKey', () => {
  it('is undefined without the header', () => {
    expect(readIdempotencyKey({})).toBeUndefined();
  });

  it('accepts 1 to 255 printable characters', () => {
    expect(readIdempotencyKey({ 'idempotency-key': 'a' })).toBe('a');
    expect(readIdempotencyKey({ 'idempotency-key': 'k'.repeat(255) })).toBe('k'.repeat(255));
    expect(readIdempotencyKey({ 'idempotency-key': 'order 42/retry:1' })).toBe('order 42/retry:1');
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['control characters', 'a\tb'],
    ['non-ASCII', 'clé'],
  ])('refuses a key that is %s with 400', (_label, value) => {
    expect(() => readIdempotencyKey({ 'idempotency-key': value })).toThrow(BadRequestException);
  });

  it('refuses the header sent twice', () => {
    expect(() => readIdempotencyKey({ 'idempotency-key': ['a', 'b'] })).toThrow(BadRequestException);
  });
});

describe('requestFingerprint', () => {
  it('ignores the order of object keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(requestFingerprint('POST', '/p', { amount: 1, currency: 'usd' })).toBe(
      requestFingerprint('post', '/p', { currency: 'usd', amount: 1 }),
    );
  });

  it('differs when the body, the path or the method differs', () => {
    const base = requestFingerprint('POST', '/p', { amount: 1 });
    expect(requestFingerprint('POST', '/p', { amount: 2 })).not.toBe(base);
    expect(requestFingerprint('POST', '/q', { amount: 1 })).not.toBe(base);
    expect(requestFingerprint('PUT', '/p', { amount: 1 })).not.toBe(base);
    expect(requestFingerprint('POST', '/p', undefined)).not.toBe(base);
    expect(requestFingerprint('POST', '/p', [1, 2])).not.toBe(requestFingerprint('POST', '/p', [2, 1]));
  });
});

describe('idempotencyScope', () => {
  it('names the caller, the method and the path without query or trailing slash', () => {
    expect(idempotencyScope('u1', 'post', '/api/v1/payments/?x=1')).toBe('u1 POST /api/v1/payments');
    expect(idempotencyScope('u1', 'POST', '/api/v1/payments')).toBe('u1 POST /api/v1/payments');
    expect(idempotencyScope('u2', 'POST', '/api/v1/payments')).not.toBe(idempotencyScope('u1', 'POST', '/api/v1/payments'));
  });
});

describe('callerId', () => {
  it('tells a user from an API key, even with the same id', () => {
    expect(callerId({ kind: 'user', userId: 'a1', accountId: 'acc' })).toBe('user:a1');
    expect(callerId({ kind: 'apiKey', keyId: 'a1', accountId: 'acc', projectId: 'p', scopes: null })).toBe('key:a1');
  });
});
