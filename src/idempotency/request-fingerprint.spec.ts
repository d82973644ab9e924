import { createHash } from 'node:crypto';
import { BadRequestException } from '@nestjs/common';
import {
  callerId,
  canonicalJson,
  idempotencyScope,
  readIdempotencyKey,
  requestFingerprint,
} from './request-fingerprint';

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
  const KEY = 'server-key-of-the-request-fingerprints';
  const fingerprint = (method: string, url: string, body: unknown) => requestFingerprint(KEY, method, url, body);

  it('ignores the order of object keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(fingerprint('POST', '/p', { amount: 1, currency: 'usd' })).toBe(
      fingerprint('post', '/p', { currency: 'usd', amount: 1 }),
    );
  });

  it('differs when the body, the path or the method differs', () => {
    const base = fingerprint('POST', '/p', { amount: 1 });
    expect(fingerprint('POST', '/p', { amount: 2 })).not.toBe(base);
    expect(fingerprint('POST', '/q', { amount: 1 })).not.toBe(base);
    expect(fingerprint('PUT', '/p', { amount: 1 })).not.toBe(base);
    expect(fingerprint('POST', '/p', undefined)).not.toBe(base);
    expect(fingerprint('POST', '/p', [1, 2])).not.toBe(fingerprint('POST', '/p', [2, 1]));
  });

  it('is keyed: not the plain SHA-256 of the request, and another key gives another value', () => {
    const body = { cardNumber: '4242424242424242', cvc: '123' };
    const plain = createHash('sha256')
      .update(`POST\n/v1/cards\n${canonicalJson(body)}`)
      .digest('hex');
    const keyed = fingerprint('POST', '/v1/cards', body);
    expect(keyed).toMatch(/^[0-9a-f]{64}$/);
    expect(keyed).not.toBe(plain);
    expect(requestFingerprint('another-key', 'POST', '/v1/cards', body)).not.toBe(keyed);
  });
});

describe('idempotencyScope', () => {
  it('names the caller, the method and the path without query or trailing slash', () => {
    expect(idempotencyScope('u1', 'post', '/api/v1/payments/?x=1')).toBe('u1 POST /api/v1/payments');
    expect(idempotencyScope('u1', 'POST', '/api/v1/payments')).toBe('u1 POST /api/v1/payments');
    expect(idempotencyScope('u2', 'POST', '/api/v1/payments')).not.toBe(
      idempotencyScope('u1', 'POST', '/api/v1/payments'),
    );
  });
});

describe('callerId', () => {
  it('tells a user from an API key, even with the same id', () => {
    expect(callerId({ kind: 'user', userId: 'a1', accountId: 'acc' })).toBe('user:a1');
    expect(
      callerId({ kind: 'apiKey', publishable: false, keyId: 'a1', accountId: 'acc', projectId: 'p', scopes: null }),
    ).toBe('key:a1');
  });
});
