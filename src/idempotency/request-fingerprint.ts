import { BadRequestException } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import type { Principal } from '../tenancy/principal';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a key is remembered. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;
/** The 422 of a key used again with another request. */
export const KEY_REUSED_MESSAGE =
  'This Idempotency-Key was already used with a different request; use a new key for a new request';

const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * The key of a request, or undefined when it sent none. A key is 1 to 255 printable ASCII
 * characters, sent once; anything else is a 400.
 */
export function readIdempotencyKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new BadRequestException('Send the Idempotency-Key header once');
  if (value.length < 1 || value.length > IDEMPOTENCY_KEY_MAX_LENGTH || !PRINTABLE.test(value)) {
    throw new BadRequestException(
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`,
    );
  }
  return value;
}

/** JSON with object keys sorted at every level, so key order does not change a request's identity. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * What makes two requests "the same request": method, URL (with query) and body, as an HMAC with
 * the server's key. Keyed, so the stored value reveals nothing of a body: an unkeyed hash could be
 * matched against guesses (every test card number in a card's body, for one).
 */
export function requestFingerprint(key: string, method: string, url: string, body: unknown): string {
  return createHmac('sha256', key)
    .update(`${method.toUpperCase()}\n${url}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** Who owns a key: a user (`user:<id>`) or an API key (`key:<id>`), never the one taken for the other. */
export function callerId(principal: Principal): string {
  return principal.kind === 'user' ? `user:${principal.userId}` : `key:${principal.keyId}`;
}

/** Keys belong to a caller and a route: the same key on another route is another key. */
export function idempotencyScope(callerId: string, method: string, url: string): string {
  const path = url.split('?')[0].replace(/\/+$/, '') || '/';
  return `${callerId} ${method.toUpperCase()} ${path}`;
}
