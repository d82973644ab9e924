import { createHash, randomBytes } from 'node:crypto';

/** A secret key acts in its project's data APIs; a publishable key only reads through the `/viewer` routes, so it may ship in an app. */
export const API_KEY_KINDS = ['secret', 'publishable'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/** Every key of this (test-mode) service starts so; `sk_` or `pk_` with anything else (`sk_live_...`) is no key of ours. */
export const API_KEY_PREFIXES: Record<ApiKeyKind, string> = { secret: 'sk_test_', publishable: 'pk_test_' };
export const API_KEY_PREFIX = API_KEY_PREFIXES.secret;
/** What marks a bearer token as an API key rather than a user's access token (a JWT starts with `eyJ`). */
export const ANY_API_KEY_PREFIXES = ['sk_', 'pk_'] as const;
/** How many characters of a key lists show, so a person can tell their keys apart. */
export const API_KEY_START_LENGTH = 12;

/** `sk_test_` or `pk_test_` and 32 random bytes in base64url: 43 characters from `[A-Za-z0-9_-]`. */
const API_KEY_FORM = /^[sp]k_test_[A-Za-z0-9_-]{43}$/;

export interface NewApiKeySecret {
  /** The key itself: shown once, never stored. */
  key: string;
  /** What is stored and looked up: the SHA-256 of the key, in hex. */
  hash: string;
  start: string;
}

export function generateApiKey(kind: ApiKeyKind = 'secret'): NewApiKeySecret {
  const key = API_KEY_PREFIXES[kind] + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), start: key.slice(0, API_KEY_START_LENGTH) };
}

/**
 * A fast hash is enough: the key is 256 random bits, so there is nothing to guess, and the lookup
 * must cost one hash and one indexed read per request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether the token starts like a key (of any kind) rather than a user's access token. */
export function looksLikeApiKey(token: string): boolean {
  return ANY_API_KEY_PREFIXES.some((prefix) => token.startsWith(prefix));
}

/** The kind a key's prefix says it is. */
export function kindOfKey(token: string): ApiKeyKind {
  return token.startsWith(API_KEY_PREFIXES.publishable) ? 'publishable' : 'secret';
}

/** Whether the token has the form of a key this service issues; anything else is refused without a read. */
export function hasApiKeyForm(token: string): boolean {
  return API_KEY_FORM.test(token);
}
